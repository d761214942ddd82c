"""Test data builders for users (plain functions, no factory library)."""

import itertools
from typing import Any

from accounts.models import User

_seq = itertools.count(1)
PASSWORD = "correct-horse-battery"


def make_user(email: str | None = None, **fields: Any) -> User:
    email = email or f"user{next(_seq)}@example.com"
    return User.objects.create_user(email=email, password=PASSWORD, **fields)
