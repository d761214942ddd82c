"""The account e-mails (password reset, registration notice): one way to build and send.

Both go to one person, in an HTML and a plain-text part (docs/spec/quality.md), from templates
`accounts/email/<name>.txt|.html`. A mail server failure is logged, not raised: the task
would only retry into the same outage, and the person can ask again.
"""

import logging
import smtplib
from typing import Any

from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string

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
