"""Reads of users that other apps' routes need."""

import uuid

from accounts.models import User
from common.errors import InvalidInput


def user_from_input(user_id: uuid.UUID, field: str = "user_id") -> User:
    """An active user named in a request body; an unknown id is a field error (400), not a 404."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise InvalidInput({field: ["No user with this id."]})
    return user


def active_user_by_email(email: str) -> User | None:
    """The active account with this address (any case), or None."""
    return User.objects.filter(email__iexact=email.strip(), is_active=True).first()
