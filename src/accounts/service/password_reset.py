"""Forgotten passwords: a signed, single-use link by e-mail, then a new password.

The request never reveals whether an account exists: the caller always gets 202 after
the same work (the address goes to a task, which looks it up), and only a real, active
account receives a message. The token is Django's
`default_token_generator`: it embeds the password hash and the last login, so it dies
as soon as the password changes (single use) and after PASSWORD_RESET_TIMEOUT.
"""

import logging

from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.errors import InvalidResetToken
from accounts.models import User
from accounts.service import login_limits, tokens
from accounts.service.account_mail import account_for_link, link_uid, send_account_mail
from common import dispatch, links

logger = logging.getLogger("encore.accounts")

SUBJECT = "Reset your Encore password"


def request_password_reset(email: str) -> None:
    """Hand the address to a task, whatever it is: the request does the same work and
    takes the same time for every address, so neither its answer nor its duration tells
    a stranger which addresses are registered. With the broker down the request is kept
    in the outbox and the mail goes out once the broker is back (`common.dispatch`)."""
    dispatch.now("accounts.send_password_reset", email.strip())


def send_password_reset(email: str) -> bool:
    """Send a reset link if an active account with this address exists; else do nothing.

    A mail server failure is logged, not raised (the task would only retry into the same
    outage; the person can ask again). True when a message went out.
    """
    user = User.objects.filter(email__iexact=email, is_active=True).first()
    if user is None or not user.has_usable_password():
        return False
    uid = link_uid(user)
    token = default_token_generator.make_token(user)
    context = {"link": reset_link(uid, token), "uid": uid, "token": token}
    return send_account_mail(user, template="password_reset", subject=SUBJECT, context=context)


def confirm_password_reset(*, uid: str, token: str, password: str) -> User:
    """Set the new password, end every session of the account (its refresh tokens) and
    clear its failed log-ins (login_limits)."""
    user = _user_for_token(uid, token)
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        raise ValidationError({"password": list(error.messages)}) from error
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password", "updated_at"])
        tokens.revoke_all_refresh_tokens(user)
    login_limits.forget_account_failures(user.email)
    return user


def reset_link_is_valid(*, uid: str, token: str) -> bool:
    """Whether a reset link still works (the web page asks for a new password only then)."""
    try:
        _user_for_token(uid, token)
    except InvalidResetToken:
        return False
    return True


def reset_link(uid: str, token: str) -> str:
    return links.password_reset_url(uid, token)


def _user_for_token(uid: str, token: str) -> User:
    """The account the link was made for, if the link is still good; else 400 invalid_token."""
    user = account_for_link(uid, token, default_token_generator)
    if user is None:
        raise InvalidResetToken()
    return user
