"""The account e-mails (password reset, registration notice, sign-up link): one way to
build and send them, and to read back the signed links two of them carry.

Both go to one person, in an HTML and a plain-text part (docs/spec/quality.md), from templates
`accounts/email/<name>.txt|.html`. A mail server failure is logged, not raised: the task
would only retry into the same outage, and the person can ask again.
"""

import logging
import smtplib
from typing import Any

from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from accounts.models import User
from common import links

logger = logging.getLogger("encore.accounts")


def send_account_mail(user: User, *, template: str, subject: str, context: dict[str, Any]) -> bool:
    """Render `accounts/email/<template>` for `user` and send it. True when it went out."""
    context = {"user": user, "settings_url": links.settings_url(), **context}
    message = EmailMultiAlternatives(
        subject=subject,
        body=render_to_string(f"accounts/email/{template}.txt", context),
        to=[user.email],
    )
    message.attach_alternative(
        render_to_string(f"accounts/email/{template}.html", context), "text/html"
    )
    try:
        message.send()
    except (smtplib.SMTPException, OSError):
        logger.exception(
            "account e-mail could not be sent",
            extra={"user_id": str(user.pk), "template": template},
        )
        return False
    return True


def link_uid(user: User) -> str:
    """The account's part of a signed link: its id, URL-safe."""
    return urlsafe_base64_encode(force_bytes(user.pk))


def account_for_link(uid: str, token: str, tokens: PasswordResetTokenGenerator) -> User | None:
    """The active account a link of `tokens` was made for while the link still works, else
    None (an altered id or token, a used or expired link, a deactivated account)."""
    try:
        user = User.objects.filter(pk=force_str(urlsafe_base64_decode(uid)), is_active=True).first()
    except (ValueError, TypeError, OverflowError, ValidationError):
        return None
    if user is None or not tokens.check_token(user, token):
        return None
    return user
