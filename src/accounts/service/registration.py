"""Sign-up: a new account from an e-mail address and a password.

Everything is validated before anything is written, and every problem is reported at
once (`errors.email`, `errors.password`, `errors.timezone`), so a client can show all of
them in one round trip.
"""

from collections.abc import Callable

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from accounts.models import User
from common.timezones import validate_timezone

DUPLICATE_EMAIL = "An account with this e-mail address already exists."


def normalize_email(email: str) -> str:
    """E-mail addresses are stored lower-case, so login and uniqueness ignore case."""
    return email.strip().lower()


def register_user(
    *,
    email: str,
    password: str,
    first_name: str = "",
    last_name: str = "",
    timezone: str = "UTC",
) -> User:
    email = normalize_email(email)
    candidate = User(email=email, first_name=first_name, last_name=last_name, timezone=timezone)
    errors: dict[str, list[str]] = {}
    _collect(errors, "email", lambda: _check_email(email))
    _collect(errors, "timezone", lambda: validate_timezone(timezone))
    _collect(errors, "password", lambda: validate_password(password, user=candidate))
    if errors:
        raise ValidationError(errors)
    return _create(candidate, password)


def _check_email(email: str) -> None:
    validate_email(email)
    if User.objects.filter(email__iexact=email).exists():
        raise ValidationError(DUPLICATE_EMAIL, code="duplicate")


def _collect(errors: dict[str, list[str]], field: str, check: Callable[[], object]) -> None:
    try:
        check()
    except ValidationError as error:
        errors[field] = [str(message) for message in error.messages]


def _create(candidate: User, password: str) -> User:
    """Insert the user; a concurrent sign-up with the same address loses with a 400, not a 500.

    The pre-check above cannot see an uncommitted twin, the unique index on `email` can.
    """
    candidate.set_password(password)
    try:
        with transaction.atomic():
            candidate.save(force_insert=True)
    except IntegrityError as error:
        raise ValidationError({"email": [DUPLICATE_EMAIL]}) from error
    return candidate
