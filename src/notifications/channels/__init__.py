"""Delivery channels. Each `send(notification)` either returns (delivered) or raises one of
the `DeliveryError`s below, which the delivery service turns into the row's status."""


class DeliveryError(Exception):
    """A channel could not deliver; the message is stored as the delivery's error text."""


class TransientDeliveryError(DeliveryError):
    """Worth another attempt later (connection trouble, timeouts, 4xx SMTP, 5xx/429 HTTP).

    `retry_after`: seconds the remote side asked us to wait (Telegram's 429), if any.
    """

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentDeliveryError(DeliveryError):
    """Retrying cannot help (refused recipient, bad request, bad credentials)."""


class ChannelUnavailable(DeliveryError):
    """Nothing to deliver to any more (no chat id, no bot token): the delivery is skipped."""
