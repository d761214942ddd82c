"""E-mail over a real SMTP server on loopback: multipart, local times, retries."""

import smtplib
from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from common.tests.ports import free_port
from notifications.channels import PermanentDeliveryError, TransientDeliveryError
from notifications.channels.email import classify_smtp_error
from notifications.models import NotificationDelivery, NotificationPreference
from notifications.signals import notification_requested
from notifications.tests.builders import make_delivery, make_notification, run_deliver_task
from notifications.tests.contexts import offer_context
from notifications.tests.servers import SmtpServer

pytestmark = pytest.mark.django_db

Status = NotificationDelivery.Status


@pytest.fixture
def email_only(user: User) -> User:
    NotificationPreference.objects.create(user=user, enabled_channels=["email"])
    return user


def send_offer(user: User, capture: Any, *, cutoff: bool = False) -> NotificationDelivery:
    with capture(execute=True):
        notification_requested.send(
            sender=None,
            notification_type="waitlist_spot_available",
            user=user,
            context=offer_context(cutoff=cutoff),
        )
    return NotificationDelivery.objects.get(notification__user=user, channel="email")


def parts(message: Any) -> tuple[str, str]:
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    return text, html


class TestOfferEmail:
    def test_offer_arrives_with_text_and_html_parts_in_the_events_local_time(
        self, email_only: User, smtp_server: SmtpServer, django_capture_on_commit_callbacks: Any
    ) -> None:
        delivery = send_offer(email_only, django_capture_on_commit_callbacks)

        (message,) = smtp_server.messages
        assert message["To"] == email_only.email
        assert message["Subject"] == "A spot opened up for you at Rock & Roll Night"
        assert message.get_content_type() == "multipart/alternative"
        text, html = parts(message)
        # 18:00 UTC start and 17:30 UTC deadline, shown as Vienna wall-clock time.
        for part in (text, html):
            assert "Tue 3 Mar 2026, 19:00 CET" in part
            assert "Mon 2 Mar 2026, 18:30 CET" in part
            assert "in 23 hours" in part
            assert "Final call" not in part
        assert "Rock & Roll Night" in text
        assert "Rock &amp; Roll Night" in html
        assert (delivery.status, delivery.attempts) == (Status.SENT, 1)

    def test_cutoff_offer_uses_the_final_call_copy(
        self, email_only: User, smtp_server: SmtpServer, django_capture_on_commit_callbacks: Any
    ) -> None:
        send_offer(email_only, django_capture_on_commit_callbacks, cutoff=True)

        (message,) = smtp_server.messages
        assert message["Subject"] == "Final call: claim your spot at Rock & Roll Night"
        text, html = parts(message)
        assert "Final call for Rock & Roll Night" in text
        assert "Final call." in html
        assert "whoever claims first" in text

    def test_german_user_gets_german_subject_and_body(
        self, smtp_server: SmtpServer, django_capture_on_commit_callbacks: Any
    ) -> None:
        german = make_user(language="de", first_name="Lena")
        NotificationPreference.objects.create(user=german, enabled_channels=["email"])

        send_offer(german, django_capture_on_commit_callbacks)

        (message,) = smtp_server.messages
        assert (
            message["Subject"].strip()
            == "Bei Rock & Roll Night ist ein Platz für dich frei geworden"
        )
        text, html = parts(message)
        assert text.startswith("Hallo Lena,")
        assert "Sichere ihn dir vor Mon 2 Mar 2026, 18:30 CET (in 23 hours)" in text
        assert '<html lang="de">' in html


class TestSmtpFailures:
    def test_a_transient_reply_is_retried_until_it_goes_through(
        self, user: User, smtp_server: SmtpServer
    ) -> None:
        delivery = make_delivery(make_notification(user), "email")
        smtp_server.handler.fail_next("451 4.3.0 try again later")

        results = run_deliver_task(delivery)

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts, delivery.error) == (Status.SENT, 2, "")
        assert len(smtp_server.messages) == 1
        assert results == ["retry in 30.0s", "sent"]

    def test_three_transient_failures_fail_the_delivery(
        self, user: User, smtp_server: SmtpServer
    ) -> None:
        delivery = make_delivery(make_notification(user), "email")
        smtp_server.handler.fail_next(*["451 4.3.0 try again later"] * 4)

        results = run_deliver_task(delivery)

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.FAILED, 3)
        assert "451" in delivery.error
        assert smtp_server.messages == []
        assert list(smtp_server.handler.replies) == ["451 4.3.0 try again later"]  # 3 used
        assert results == ["retry in 30.0s", "retry in 60.0s", "failed"]

    def test_a_permanent_reply_is_not_retried(self, user: User, smtp_server: SmtpServer) -> None:
        delivery = make_delivery(make_notification(user), "email")
        smtp_server.handler.fail_next("554 5.7.1 rejected", "554 5.7.1 rejected")

        assert run_deliver_task(delivery) == ["failed"]

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.FAILED, 1)
        assert "554" in delivery.error
        assert len(smtp_server.handler.replies) == 1

    def test_an_unreachable_server_is_transient_and_gives_up_after_three_attempts(
        self, user: User, settings: Any
    ) -> None:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nobody listens
        delivery = make_delivery(make_notification(user), "email")

        assert run_deliver_task(delivery)[-1] == "failed"

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.FAILED, 3)
        assert "SMTP connection failed" in delivery.error


class TestSmtpErrorClassification:
    @pytest.mark.parametrize(
        "error",
        [
            smtplib.SMTPServerDisconnected("gone"),
            smtplib.SMTPConnectError(421, b"busy"),
            smtplib.SMTPDataError(452, b"insufficient storage"),
            smtplib.SMTPSenderRefused(451, b"local error", "from@x"),
            smtplib.SMTPRecipientsRefused({"a@x": (450, b"mailbox busy")}),
        ],
    )
    def test_transient(self, error: smtplib.SMTPException) -> None:
        assert isinstance(classify_smtp_error(error), TransientDeliveryError)

    @pytest.mark.parametrize(
        "error",
        [
            smtplib.SMTPAuthenticationError(535, b"bad credentials"),
            smtplib.SMTPDataError(554, b"rejected"),
            smtplib.SMTPRecipientsRefused({"a@x": (550, b"no such user")}),
            smtplib.SMTPRecipientsRefused({"a@x": (450, b"busy"), "b@x": (550, b"no")}),
            smtplib.SMTPNotSupportedError("no STARTTLS"),
        ],
    )
    def test_permanent(self, error: smtplib.SMTPException) -> None:
        assert isinstance(classify_smtp_error(error), PermanentDeliveryError)
