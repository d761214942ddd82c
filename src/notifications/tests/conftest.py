"""Fixtures of the notifications tests: real local SMTP and Bot API servers, recipients."""

from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from notifications.models import NotificationPreference
from notifications.tests.servers import BotApiStub, SmtpServer, run_bot_api_stub, smtp_backend

BOT_TOKEN = "123456:TEST-token"
CHAT_ID = "424242"


@pytest.fixture
def smtp_server(settings: Any) -> Iterator[SmtpServer]:
    """An aiosmtpd server on 127.0.0.1; Django's SMTP backend points at it."""
    with smtp_backend(settings) as server:
        yield server


@pytest.fixture
def bot_api(settings: Any) -> Iterator[BotApiStub]:
    """A local Bot API stub; the Telegram channel is on and talks to it."""
    with run_bot_api_stub() as stub:
        settings.TELEGRAM_BOT_TOKEN = BOT_TOKEN
        settings.TELEGRAM_API_BASE = stub.base_url
        settings.TELEGRAM_TIMEOUT_SECONDS = 5
        yield stub


@pytest.fixture
def recipient(db: None) -> User:
    """A Vienna-based person who wants every channel, Telegram included."""
    person = make_user(first_name="Anna", last_name="Huber", timezone="Europe/Vienna")
    NotificationPreference.objects.create(
        user=person,
        enabled_channels=["in_app", "email", "telegram"],
        telegram_chat_id=CHAT_ID,
    )
    return person
