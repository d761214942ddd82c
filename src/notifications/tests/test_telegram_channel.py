"""Telegram over HTTP against a local Bot API stub: payload, retries, redaction, skipping."""

from typing import Any

import pytest

from accounts.models import User
from common.tests.ports import free_port
from notifications.channels import PermanentDeliveryError, TransientDeliveryError
from notifications.channels.telegram import TelegramClient
from notifications.models import NotificationDelivery, NotificationPreference
from notifications.service import delivery as delivery_service
from notifications.signals import notification_requested
from notifications.tests.builders import make_delivery, make_notification, run_deliver_task
from notifications.tests.conftest import BOT_TOKEN, CHAT_ID
from notifications.tests.contexts import offer_context
from notifications.tests.servers import BotApiStub

pytestmark = pytest.mark.django_db

Status = NotificationDelivery.Status
SERVER_ERROR = (502, {"ok": False, "error_code": 502, "description": "Bad Gateway"})


def telegram_delivery(user: User, **context: Any) -> NotificationDelivery:
    return make_delivery(make_notification(user, **context), "telegram")


class TestClient:
    def test_send_message_posts_chat_id_and_text_to_the_bot_url(self, bot_api: BotApiStub) -> None:
        client = TelegramClient(token=BOT_TOKEN, api_base=bot_api.base_url)

        result = client.send_message("777", "hello there")

        (request,) = bot_api.requests
        assert request["path"] == f"/bot{BOT_TOKEN}/sendMessage"
        assert request["json"] == {"chat_id": "777", "text": "hello there"}
        assert result["chat"] == {"id": "777"}

    @pytest.mark.parametrize("status", [500, 502, 503])
    def test_server_errors_are_transient(self, bot_api: BotApiStub, status: int) -> None:
        bot_api.reply(status, {"ok": False, "error_code": status, "description": "oops"})
        client = TelegramClient(token=BOT_TOKEN, api_base=bot_api.base_url)

        with pytest.raises(TransientDeliveryError, match=f"Telegram {status}: oops"):
            client.send_message("1", "x")

    def test_too_many_requests_is_transient_and_carries_retry_after(
        self, bot_api: BotApiStub
    ) -> None:
        bot_api.reply(
            429,
            {
                "ok": False,
                "error_code": 429,
                "description": "Too Many Requests: retry after 7",
                "parameters": {"retry_after": 7},
            },
        )
        client = TelegramClient(token=BOT_TOKEN, api_base=bot_api.base_url)

        with pytest.raises(TransientDeliveryError) as caught:
            client.send_message("1", "x")

        assert caught.value.retry_after == 7

    @pytest.mark.parametrize("status", [400, 401, 403, 404])
    def test_other_client_errors_are_permanent(self, bot_api: BotApiStub, status: int) -> None:
        bot_api.reply(status, {"ok": False, "error_code": status, "description": "nope"})
        client = TelegramClient(token=BOT_TOKEN, api_base=bot_api.base_url)

        with pytest.raises(PermanentDeliveryError):
            client.send_message("1", "x")

    def test_an_unreachable_api_is_transient_and_the_token_is_not_in_the_error(self) -> None:
        client = TelegramClient(
            token=BOT_TOKEN, api_base=f"http://127.0.0.1:{free_port()}", timeout=2
        )

        with pytest.raises(TransientDeliveryError) as caught:
            client.send_message("1", "x")

        assert BOT_TOKEN not in str(caught.value)
        assert "<token>" in str(caught.value)

    def test_long_text_is_cut_to_the_bot_api_limit(self, bot_api: BotApiStub) -> None:
        TelegramClient(token=BOT_TOKEN, api_base=bot_api.base_url).send_message("1", "x" * 5000)

        assert len(bot_api.requests[0]["json"]["text"]) == 4096


class TestOfferOverTelegram:
    def test_offer_reaches_the_users_chat_with_local_times(
        self, recipient: User, bot_api: BotApiStub, django_capture_on_commit_callbacks: Any
    ) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            notification_requested.send(
                sender=None,
                notification_type="waitlist_spot_available",
                user=recipient,
                context=offer_context(cutoff=True),
            )

        (request,) = bot_api.requests
        assert request["json"]["chat_id"] == CHAT_ID
        text = request["json"]["text"]
        assert text.startswith("Final call: claim your spot at Rock & Roll Night")
        assert "Tue 3 Mar 2026, 19:00 CET" in text
        assert "Mon 2 Mar 2026, 18:30 CET (in 23 hours)" in text
        assert "http://frontend.test/events/" in text


class TestRetries:
    def test_a_server_error_is_retried_and_then_sent(
        self, recipient: User, bot_api: BotApiStub
    ) -> None:
        delivery = telegram_delivery(recipient)
        bot_api.reply(*SERVER_ERROR)

        results = run_deliver_task(delivery)

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.SENT, 2)
        assert results == ["retry in 30.0s", "sent"]
        assert len(bot_api.requests) == 2

    def test_three_server_errors_fail_after_three_requests(
        self, recipient: User, bot_api: BotApiStub
    ) -> None:
        delivery = telegram_delivery(recipient)
        for _ in range(4):
            bot_api.reply(*SERVER_ERROR)

        results = run_deliver_task(delivery)

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.FAILED, 3)
        assert delivery.error == "Telegram 502: Bad Gateway"
        assert results == ["retry in 30.0s", "retry in 60.0s", "failed"]
        assert len(bot_api.requests) == 3

    def test_too_many_requests_waits_the_retry_after_it_names(
        self, recipient: User, bot_api: BotApiStub
    ) -> None:
        delivery = telegram_delivery(recipient)
        bot_api.reply(
            429,
            {
                "ok": False,
                "error_code": 429,
                "description": "Too Many Requests",
                "parameters": {"retry_after": 42},
            },
        )

        results = run_deliver_task(delivery)

        delivery.refresh_from_db()
        assert results == ["retry in 42.0s", "sent"]
        assert (delivery.status, delivery.attempts) == (Status.SENT, 2)

    def test_a_bad_request_fails_at_once(self, recipient: User, bot_api: BotApiStub) -> None:
        delivery = telegram_delivery(recipient)
        bot_api.reply(400, {"ok": False, "error_code": 400, "description": "chat not found"})

        assert run_deliver_task(delivery) == ["failed"]

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.FAILED, 1)
        assert delivery.error == "Telegram 400: chat not found"
        assert len(bot_api.requests) == 1


class TestSkipping:
    def test_a_chat_id_removed_before_sending_skips_the_delivery(
        self, recipient: User, bot_api: BotApiStub
    ) -> None:
        delivery = telegram_delivery(recipient)
        NotificationPreference.objects.filter(user=recipient).update(telegram_chat_id="")

        outcome = delivery_service.deliver(delivery.pk)

        delivery.refresh_from_db()
        assert outcome.status == delivery.status == Status.SKIPPED
        assert "chat id" in delivery.error
        assert bot_api.requests == []

    def test_a_bot_token_removed_before_sending_skips_the_delivery(
        self, recipient: User, settings: Any
    ) -> None:
        settings.TELEGRAM_BOT_TOKEN = ""
        delivery = telegram_delivery(recipient)

        delivery_service.deliver(delivery.pk)

        delivery.refresh_from_db()
        assert (delivery.status, delivery.attempts) == (Status.SKIPPED, 1)
