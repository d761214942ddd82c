"""Deleting users: ask every app whether they may go, let every app release, then delete.

A user holds things in apps accounts may not import (seats, offers and queue places in
`events`); deleting the row alone would cascade them away without freeing a seat or
moving a waitlist on. So the deletion goes in three steps (accounts.signals, ADR 0013):

1. `user_deletion_requested`: every receiver checks every user and may refuse (raises a
   `UserDeletionRefused`); nothing has been written yet.
2. `user_departing`: every receiver releases what the users hold, through its own
   services. Outside a transaction each release commits on its own; the releases are
   idempotent, so if a later step fails the user still exists and a retry carries on.
   Inside a transaction (the Django admin's views) it is all or nothing.
3. the rows are deleted in one transaction. The apps also hook the model's `pre_delete`
   (events does): it re-checks and releases whatever appeared since step 2, and makes a
   bare `user.delete()` or `User.objects.filter(...).delete()` just as safe.
"""

from collections.abc import Iterable

from django.db import transaction

from accounts.models import User
from accounts.signals import user_deletion_requested, user_departing


def check_deletable(users: Iterable[User]) -> None:
    """Raise the first `UserDeletionRefused` any app has for any of `users`; writes nothing."""
    people = list(users)
    if people:
        user_deletion_requested.send(sender=User, users=people)


def delete_user(user: User) -> None:
    """Delete one user after releasing what they hold (or refuse, changing nothing)."""
    delete_users([user])


def delete_users(users: Iterable[User]) -> int:
    """Delete `users` (the admin's bulk action, one user alike); returns how many went.

    Every user is checked before anything is released, so one refused user stops the
    whole batch untouched.
    """
    people = list(users)
    if not people:
        return 0
    check_deletable(people)
    user_departing.send(sender=User, users=people)
    with transaction.atomic():
        _, per_model = User.objects.filter(pk__in=[person.pk for person in people]).delete()
    return per_model.get(User._meta.label, 0)
