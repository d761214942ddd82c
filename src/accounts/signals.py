"""Signals of the accounts app: the two steps other apps take part in when users are deleted.

accounts sits below the apps that hold a user's seats, offers and queue places (`events`),
so it cannot release them itself, nor import those apps; it announces the deletion and
they answer (ADR 0013). `accounts.service.user_deletion` sends both, in this order, each
with `users` (a list of User): first every receiver may refuse, for every user; only then
does any receiver release anything; only then are the rows deleted.
"""

from django.dispatch import Signal

#: May these users go? A receiver that says no raises an `accounts.errors.UserDeletionRefused`
#: subclass naming the reason and what to do first. Receivers only read: a refusal leaves
#: nothing changed.
user_deletion_requested = Signal()

#: They go: each receiver releases what the users hold in its app, through its own
#: services (their locks, counters and follow-ups). Each release commits on its own when
#: no transaction surrounds the call and must be idempotent, so a deletion interrupted
#: half-way is finished by calling it again.
user_departing = Signal()
