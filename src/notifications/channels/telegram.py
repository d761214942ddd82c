"""Telegram: a small Bot API client over HTTP (`sendMessage` with a chat id and plain text).

Off when `TELEGRAM_BOT_TOKEN` is empty. 5xx replies, 429 (after its
`parameters.retry_after`), timeouts and connection errors are transient; any other 4xx is
permanent. The token is part of the URL, so it is scrubbed from every error text.
"""

from dataclasses import dataclass
from typing import Any

import requests
from django.conf import settings

from notifications import rendering
from notifications.channels import (
    ChannelUnavailable,
    PermanentDeliveryError,
    TransientDeliveryError,
)
from notifications.models import Notification
from notifications.preference_rows import get_preferences

MAX_MESSAGE_LENGTH = 4096  # Bot API limit for `text`


@dataclass(frozen=True)
class TelegramClient:
    token: str
    api_base: str = "https://api.telegram.org"
    timeout: float = 10.0

    def send_message(self, chat_id: str, text: str) -> dict[str, Any]:
        """POST sendMessage; returns the sent Message object or raises a DeliveryError."""
        url = f"{self.api_base.rstrip('/')}/bot{self.token}/sendMessage"
        payload = {"chat_id": chat_id, "text": text[:MAX_MESSAGE_LENGTH]}
        try:
            response = requests.post(url, json=payload, timeout=self.timeout)
        except requests.RequestException as exc:
            raise TransientDeliveryError(self._redact(f"Telegram request failed: {exc!r}")) from exc
        return self._result(response)

    def _result(self, response: requests.Response) -> dict[str, Any]:
        body = _json(response)
        if response.status_code == 200 and body.get("ok") is True:
            result = body.get("result")
            return result if isinstance(result, dict) else {}
        status = response.status_code
        if status == 200:  # ok: false with a 200 is not the documented API; trust error_code
            status = int(body.get("error_code") or 500)
        message = self._redact(f"Telegram {status}: {body.get('description') or response.reason}")
        if status == 429:
            raise TransientDeliveryError(message, retry_after=_retry_after(body))
        if status >= 500:
            raise TransientDeliveryError(message)
        raise PermanentDeliveryError(message)

    def _redact(self, text: str) -> str:
        return text.replace(self.token, "<token>") if self.token else text


def client_from_settings() -> TelegramClient | None:
    token = settings.TELEGRAM_BOT_TOKEN
    if not token:
        return None
    return TelegramClient(
        token=token,
        api_base=settings.TELEGRAM_API_BASE,
        timeout=float(settings.TELEGRAM_TIMEOUT_SECONDS),
    )


def send(notification: Notification) -> None:
    client = client_from_settings()
    if client is None:
        raise ChannelUnavailable("Telegram is off: no TELEGRAM_BOT_TOKEN is configured.")
    chat_id = get_preferences(notification.user).telegram_chat_id
    if not chat_id:
        raise ChannelUnavailable("The user has no Telegram chat id.")
    text = rendering.render_telegram(
        notification.notification_type, notification.context, notification.user
    )
    client.send_message(chat_id, text)


def _json(response: requests.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _retry_after(body: dict[str, Any]) -> float | None:
    parameters = body.get("parameters")
    value = parameters.get("retry_after") if isinstance(parameters, dict) else None
    return float(value) if isinstance(value, int | float) and value >= 0 else None
