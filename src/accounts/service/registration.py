"""Sign-up: a new account from an e-mail address and a password.

Everything is validated before anything is written, and every problem is reported at
once (`errors.email`, `errors.password`, `errors.timezone`), so a client can show all of
them in one round trip.

The answer never tells whether the address already has an account (ADR 0011): for a
taken address the caller gets the same 201 and the same user body as for a new one (the
id then names no account, nothing is written), after the same password hashing; the
address's owner gets an e-mail instead ("someone tried to register with your address"),
sent by the task `accounts.send_registration_notice`, at most once per
REGISTRATION_NOTICE_INTERVAL_SECONDS per address.
"""

import hashlib
import logging
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction

from accounts.models import User
from accounts.service.account_mail import send_account_mail
from common import dispatch, links
from common.timezones import validate_timezone

logger = logging.getLogger("encore.accounts")

NOTICE_SUBJECT = "Someone tried to register with your e-mail address"


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
    language: str = "en",
) -> User:
    """The new user, or for a taken address an unsaved look-alike (see the module doc)."""
    email = normalize_email(email)
    candidate = User(
        email=email,
        first_name=first_name,
        last_name=last_name,
        timezone=timezone,
        language=language if language in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE,
    )
    errors: dict[str, list[str]] = {}
    _collect(errors, "email", lambda: validate_email(email))
    _collect(errors, "timezone", lambda: validate_timezone(timezone))
    _collect(errors, "password", lambda: validate_password(password, user=candidate))
    if errors:
        raise ValidationError(errors)
    candidate.set_password(password)  # the same hashing work whether or not it is taken
    if User.objects.filter(email__iexact=email).exists() or not _insert(candidate):
        _tell_owner(email)
    return candidate


def send_registration_notice(email: str) -> bool:
    """Mail the owner of `email` that someone tried to sign up with it, if an active
    account has it and no notice went to it within REGISTRATION_NOTICE_INTERVAL_SECONDS.

    A mail server failure is logged, not raised (like the reset mail). True when sent.
    """
    user = User.objects.filter(email__iexact=email, is_active=True).first()
    if user is None:
        return False
    if not cache.add(_notice_key(user.email), 1, settings.REGISTRATION_NOTICE_INTERVAL_SECONDS):
        return False
    return send_account_mail(
        user,
        template="registration_notice",
        subject=NOTICE_SUBJECT,
        context={"link": links.home_url()},
    )


def _collect(errors: dict[str, list[str]], field: str, check: Callable[[], object]) -> None:
    try:
        check()
    except ValidationError as error:
        errors[field] = [str(message) for message in error.messages]


def _insert(candidate: User) -> bool:
    """Insert the user; False when the address turned out to be taken after all.

    The pre-check cannot see an uncommitted twin; the unique index on `email` can, and a
    concurrent sign-up with the same address then gets the taken-address answer.
    """
    try:
        with transaction.atomic():
            candidate.save(force_insert=True)
    except IntegrityError:
        return False
    return True


def _tell_owner(email: str) -> None:
    """Hand the notice to a task; with the broker down it waits in the outbox
    (`common.dispatch`) and the answer stays the same."""
    dispatch.now("accounts.send_registration_notice", email)


def _notice_key(email: str) -> str:
    return "registration-notice:" + hashlib.sha256(email.encode()).hexdigest()[:32]
