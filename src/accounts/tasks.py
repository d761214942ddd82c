"""Celery tasks of the accounts app. Thin: take plain values, call one service, names pinned."""

from celery import shared_task

from accounts.service import password_reset, registration, signup_link

#: SMTP has its own timeout (EMAIL_TIMEOUT); these stop a send that still hangs (prefork).
MAIL_SOFT_TIME_LIMIT = 45
MAIL_TIME_LIMIT = 60


@shared_task(
    name="accounts.send_password_reset",
    soft_time_limit=MAIL_SOFT_TIME_LIMIT,
    time_limit=MAIL_TIME_LIMIT,
)
def send_password_reset_task(email: str) -> bool:
    """Look the address up and mail a reset link if it belongs to an active account."""
    return password_reset.send_password_reset(email)


@shared_task(name="accounts.send_registration_notice")
def send_registration_notice_task(email: str) -> bool:
    """Tell the owner of a taken address that someone tried to register with it."""
    return registration.send_registration_notice(email)


@shared_task(
    name="accounts.send_signup_link",
    soft_time_limit=MAIL_SOFT_TIME_LIMIT,
    time_limit=MAIL_TIME_LIMIT,
)
def send_signup_link_task(user_id: str, next_path: str) -> bool:
    """Mail a new account the link that signs it in (the web sign-up's last step)."""
    return signup_link.send_signup_link(user_id, next_path)
