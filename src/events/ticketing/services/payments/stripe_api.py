"""The one place Encore talks to Stripe: the official client, built from settings.

Every call is made outside any row lock (docs/spec/domain.md: no provider call while a lock is
held) and on behalf of the organisation's connected account (`stripe_account`, ADR
0026). `STRIPE_API_BASE` points the client at a local stub in tests; nothing else fakes
it. `to_minor`/`to_major` are re-exported from `events.utils.money`.
Stripe's errors leave as `PaymentProviderUnavailable` (502) so a controller never
answers 500 for a provider outage.
"""

from typing import Any

import stripe
from django.conf import settings

from events.ticketing.errors import PaymentProviderUnavailable, PaymentsNotConfigured
from events.utils.money import to_major, to_minor


def client() -> stripe.StripeClient:
    key = settings.STRIPE_SECRET_KEY
    if not key:
        raise PaymentsNotConfigured()
    base = settings.STRIPE_API_BASE
    return stripe.StripeClient(
        key,
        base_addresses={"api": base} if base else None,
        max_network_retries=1,
    )


def is_enabled() -> bool:
    return bool(settings.STRIPE_SECRET_KEY)


def call(
    method: Any, *args: Any, account: str, idempotency_key: str | None = None, **params: Any
) -> Any:
    """Run one client method for `account`; provider failures become a 502."""
    options: dict[str, Any] = {"stripe_account": account}
    if idempotency_key:
        options["idempotency_key"] = idempotency_key
    try:
        answer = method(*args, params=params or None, options=options)
    except stripe.StripeError as exc:
        raise PaymentProviderUnavailable(extra={"provider_code": exc.code or ""}) from exc
    return dict(answer.to_dict())


def find(method: Any, *args: Any, account: str) -> dict[str, Any] | None:
    """`call` for a read whose object may not exist: None when Stripe answers 404."""
    try:
        return call(method, *args, account=account)
    except PaymentProviderUnavailable as exc:
        cause = exc.__cause__
        if isinstance(cause, stripe.StripeError) and cause.http_status == 404:
            return None
        raise


__all__ = ["call", "client", "find", "is_enabled", "to_major", "to_minor"]
