"""E-mail: one multipart message (plain text + HTML) through Django's configured backend.

SMTP failures are sorted into transient (4xx replies, dropped or refused connections,
timeouts: try again later) and permanent (5xx replies, bad credentials: give up now).
"""

import smtplib
from email.utils import parseaddr

from django.conf import settings
from django.core.mail import EmailMultiAlternatives

from notifications import rendering
from notifications.channels import PermanentDeliveryError, TransientDeliveryError
from notifications.models import Notification


def send(notification: Notification) -> None:
    user = notification.user
    content = rendering.render_email(notification.notification_type, notification.context, user)
    message = EmailMultiAlternatives(
        subject=content.subject,
        body=content.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[user.email],
        headers={
            "X-Encore-Notification": f"{notification.notification_type} {notification.pk}",
            "Message-ID": message_id(notification),
        },
    )
    message.attach_alternative(content.html, "text/html")
    try:
        message.send(fail_silently=False)
    except smtplib.SMTPException as exc:  # before OSError: SMTPException is an OSError
        raise classify_smtp_error(exc) from exc
    except OSError as exc:  # ConnectionError, socket.timeout, unreachable host
        raise TransientDeliveryError(f"SMTP connection failed: {exc!r}") from exc


def message_id(notification: Notification) -> str:
    """One Message-ID per notification, the same on every attempt: should a retry follow a
    send whose outcome was lost with its worker, mail systems see the same message twice
    and keep one (ADR 0036)."""
    domain = parseaddr(settings.DEFAULT_FROM_EMAIL)[1].rpartition("@")[2] or "encore.local"
    return f"<notification-{notification.pk}@{domain}>"


def classify_smtp_error(
    exc: smtplib.SMTPException,
) -> TransientDeliveryError | PermanentDeliveryError:
    """4xx SMTP replies and lost connections are transient; everything else is permanent."""
    message = f"SMTP error: {exc!r}"
    if isinstance(exc, smtplib.SMTPServerDisconnected | smtplib.SMTPConnectError):
        return TransientDeliveryError(message)
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _reply in exc.recipients.values()]
        transient = bool(codes) and all(_is_transient_code(code) for code in codes)
    elif isinstance(exc, smtplib.SMTPResponseException):
        transient = _is_transient_code(exc.smtp_code)
    else:
        transient = False
    return TransientDeliveryError(message) if transient else PermanentDeliveryError(message)


def _is_transient_code(code: int) -> bool:
    return 400 <= code < 500
