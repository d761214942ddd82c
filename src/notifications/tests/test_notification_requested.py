"""One signal in: validated, stored in the user's language, dispatched only after commit."""

from typing import Any

import pytest
from django.db import transaction

from accounts.models import User
from accounts.tests.factories import make_user
from notifications.models import Notification, NotificationDelivery, NotificationPreference
from notifications.signals import notification_requested
from notifications.tests.contexts import context_for, event_context, offer_context
from notifications.tests.servers import BotApiStub, SmtpServer
from notifications.types import NOTIFICATION_SPECS

pytestmark = pytest.mark.django_db

Status = NotificationDelivery.Status


def notify(user: User, notification_type: str, context: dict[str, Any]) -> Notification:
    responses = notification_requested.send(
        sender=None, notification_type=notification_type, user=user, context=context
    )
    notification = responses[0][1]
    assert isinstance(notification, Notification)
    return notification


def deliveries_of(notification: Notification) -> dict[str, NotificationDelivery]:
    return {d.channel: d for d in NotificationDelivery.objects.filter(notification=notification)}


class TestContextValidation:
    def test_missing_required_keys_raise_value_error_naming_them(self, user: User) -> None:
        context = offer_context()
        del context["expires_at_formatted"], context["is_cutoff_batch"]

        with pytest.raises(ValueError, match="expires_at_formatted, is_cutoff_batch"):
            notify(user, "waitlist_spot_available", context)

        assert not Notification.objects.exists()

    def test_waitlist_offer_requires_every_key_of_the_seed_table(self) -> None:
        spec = NOTIFICATION_SPECS["waitlist_spot_available"]
        assert spec.required_keys == {
            "event_id",
            "event_name",
            "event_url",
            "event_start",
            "event_start_formatted",
            "organization_id",
            "organization_name",
            "offer_id",
            "expires_at",
            "expires_at_formatted",
            "time_remaining_formatted",
            "is_cutoff_batch",
        }
        assert spec.time_critical

    def test_only_the_offer_is_time_critical(self) -> None:
        critical = {name for name, spec in NOTIFICATION_SPECS.items() if spec.time_critical}
        assert critical == {"waitlist_spot_available"}

    def test_digest_occurrences_must_carry_their_keys(self, user: User) -> None:
        context = context_for("series_events_generated")
        del context["occurrences"][1]["start_formatted"]

        with pytest.raises(ValueError, match=r"occurrences\[1\]\.start_formatted"):
            notify(user, "series_events_generated", context)

    def test_unknown_type_is_refused(self, user: User) -> None:
        with pytest.raises(ValueError, match="unknown notification type"):
            notify(user, "birthday_greeting", event_context())

    @pytest.mark.parametrize("notification_type", sorted(NOTIFICATION_SPECS))
    def test_every_type_stores_a_rendered_title_and_body(
        self, user: User, notification_type: str
    ) -> None:
        notification = notify(user, notification_type, context_for(notification_type))

        notification.refresh_from_db()
        assert notification.title and "\n" not in notification.title
        assert notification.body
        assert "{{" not in notification.title + notification.body


class TestStoring:
    def test_context_is_stored_as_plain_json(self, user: User) -> None:
        context = offer_context()

        notification = notify(user, "waitlist_spot_available", context)

        notification.refresh_from_db()
        assert notification.context["event_id"] == str(context["event_id"])
        assert notification.context["expires_at"] == "2026-03-02T17:30:00Z"
        assert notification.context["is_cutoff_batch"] is False

    def test_title_uses_the_formatted_times_of_the_context(self, user: User) -> None:
        notification = notify(user, "waitlist_spot_available", offer_context())

        assert notification.title == "A spot opened up at Rock & Roll Night"
        assert "Mon 2 Mar 2026, 18:30 CET" in notification.body
        assert "in 23 hours" in notification.body

    def test_title_is_rendered_in_the_users_language(self) -> None:
        german = make_user(language="de")

        notification = notify(german, "waitlist_spot_available", offer_context())

        assert notification.title == "Ein Platz bei Rock & Roll Night ist frei geworden"
        assert "Sichere ihn dir vor Mon 2 Mar 2026, 18:30 CET" in notification.body

    def test_a_regional_variant_uses_its_base_language(self) -> None:
        austrian = make_user(language="de-at")

        notification = notify(austrian, "event_cancelled", event_context())

        assert notification.title == "Abgesagt: Rock & Roll Night"

    def test_an_unknown_language_falls_back_to_english(self) -> None:
        klingon = make_user(language="tlh")

        notification = notify(klingon, "event_cancelled", event_context())

        assert notification.title == "Cancelled: Rock & Roll Night"


class TestDispatchOnCommit:
    def test_nothing_is_dispatched_before_commit(
        self, recipient: User, django_capture_on_commit_callbacks: Any
    ) -> None:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            notification = notify(recipient, "event_open", event_context())

        assert len(callbacks) == 1
        assert not NotificationDelivery.objects.filter(notification=notification).exists()

    def test_commit_creates_one_delivery_per_channel_and_sends_each_once(
        self,
        recipient: User,
        smtp_server: SmtpServer,
        bot_api: BotApiStub,
        django_capture_on_commit_callbacks: Any,
    ) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            notification = notify(recipient, "waitlist_spot_available", offer_context())

        deliveries = deliveries_of(notification)
        assert set(deliveries) == {"in_app", "email", "telegram"}
        assert all(d.status == Status.SENT and d.attempts == 1 for d in deliveries.values())
        assert all(d.sent_at is not None for d in deliveries.values())
        assert len(smtp_server.messages) == 1
        assert len(bot_api.requests) == 1

    def test_in_app_is_delivered_without_any_task(
        self, user: User, django_capture_on_commit_callbacks: Any, settings: Any
    ) -> None:
        NotificationPreference.objects.create(user=user, enabled_channels=["in_app"])

        with django_capture_on_commit_callbacks(execute=True):
            notification = notify(user, "event_open", event_context())

        (delivery,) = deliveries_of(notification).values()
        assert (delivery.channel, delivery.status, delivery.attempts) == ("in_app", "sent", 1)

    def test_a_silenced_user_gets_the_stored_row_but_no_delivery(
        self, user: User, smtp_server: SmtpServer, django_capture_on_commit_callbacks: Any
    ) -> None:
        NotificationPreference.objects.create(user=user, silence_all=True)

        with django_capture_on_commit_callbacks(execute=True):
            notification = notify(user, "event_open", event_context())

        assert deliveries_of(notification) == {}
        assert smtp_server.messages == []

    def test_telegram_is_left_out_without_a_bot_token(
        self,
        recipient: User,
        smtp_server: SmtpServer,
        settings: Any,
        django_capture_on_commit_callbacks: Any,
    ) -> None:
        settings.TELEGRAM_BOT_TOKEN = ""

        with django_capture_on_commit_callbacks(execute=True):
            notification = notify(recipient, "event_open", event_context())

        assert set(deliveries_of(notification)) == {"in_app", "email"}

    def test_dispatching_twice_sends_nothing_twice(
        self,
        recipient: User,
        smtp_server: SmtpServer,
        bot_api: BotApiStub,
        django_capture_on_commit_callbacks: Any,
    ) -> None:
        from notifications.service import dispatch

        with django_capture_on_commit_callbacks(execute=True):
            notification = notify(recipient, "event_open", event_context())
        dispatch.dispatch_notification(notification.pk)

        assert NotificationDelivery.objects.filter(notification=notification).count() == 3
        assert len(smtp_server.messages) == 1
        assert len(bot_api.requests) == 1

    def test_a_failing_email_does_not_stop_in_app_and_telegram(
        self,
        recipient: User,
        smtp_server: SmtpServer,
        bot_api: BotApiStub,
        django_capture_on_commit_callbacks: Any,
    ) -> None:
        smtp_server.handler.fail_next("550 5.1.1 mailbox unavailable")

        with django_capture_on_commit_callbacks(execute=True):
            notification = notify(recipient, "waitlist_spot_available", offer_context())

        deliveries = deliveries_of(notification)
        assert deliveries["email"].status == Status.FAILED
        assert "550" in deliveries["email"].error
        assert deliveries["in_app"].status == Status.SENT
        assert deliveries["telegram"].status == Status.SENT
        assert [r["json"]["chat_id"] for r in bot_api.requests] == ["424242"]


@pytest.mark.django_db(transaction=True)
class TestRealTransactions:
    """No test transaction around these: commit and rollback are the database's own."""

    def test_rolled_back_transaction_stores_and_sends_nothing(
        self, recipient: User, smtp_server: SmtpServer, bot_api: BotApiStub
    ) -> None:
        with pytest.raises(RuntimeError, match="sender failed later"), transaction.atomic():
            notify(recipient, "waitlist_spot_available", offer_context())
            raise RuntimeError("sender failed later")

        assert not Notification.objects.exists()
        assert not NotificationDelivery.objects.exists()
        assert smtp_server.messages == []
        assert bot_api.requests == []

    def test_committed_transaction_sends_once_per_channel(
        self, recipient: User, smtp_server: SmtpServer, bot_api: BotApiStub
    ) -> None:
        with transaction.atomic():
            notification = notify(recipient, "waitlist_spot_available", offer_context())
            assert smtp_server.messages == []  # still inside the transaction

        statuses = {
            d.channel: d.status
            for d in NotificationDelivery.objects.filter(notification=notification)
        }
        assert statuses == {"in_app": "sent", "email": "sent", "telegram": "sent"}
        assert len(smtp_server.messages) == 1
        assert len(bot_api.requests) == 1

    def test_a_dispatch_failure_after_commit_is_logged_not_raised(
        self, user: User, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        from notifications.service import dispatch

        def broken_dispatch(notification_id: object) -> None:
            raise RuntimeError("dispatch bug")

        monkeypatch.setattr(dispatch, "dispatch_notification", broken_dispatch)

        with transaction.atomic():
            notification = notify(user, "event_open", event_context())

        # The sender's transaction committed: the row stays, the failure is only logged.
        assert Notification.objects.filter(pk=notification.pk).exists()
        assert "dispatch bug" in caplog.text
