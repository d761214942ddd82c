"""Encore's own expiry of unpaid online checkouts (the beat runs it every 5 minutes).

Stripe expires a session at its `expires_at` and says so (`checkout.session.expired`);
this sweep is for when that event is lost or late, and for a session that was never
created. A payment still open a minute past its deadline is expired at Stripe first
(after that nobody can pay it), then its tickets are cancelled and their seats freed.
If Stripe answers that the session was paid after all, it is settled as paid instead.
"""

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from events.models import Payment
from events.ticketing.errors import PaymentProviderUnavailable
from events.ticketing.services.payments import settle, stripe_api

logger = logging.getLogger("encore.payments")

GRACE = timedelta(minutes=1)
BATCH = 200


def expire_open_checkouts(now: datetime | None = None) -> int:
    """Returns how many payments were expired (their seats given back)."""
    now = now or timezone.now()
    overdue = list(
        Payment.objects.filter(status=Payment.Status.OPEN, expires_at__lte=now - GRACE)
        .order_by("expires_at")
        .values_list("pk", "checkout_session_id", "stripe_account")[:BATCH]
    )
    expired = 0
    for payment_id, session_id, account in overdue:
        if session_id and not _expired_at_stripe(payment_id, session_id, account, now):
            continue
        if settle.release_unpaid(payment_id, Payment.Status.EXPIRED, timezone.now()):
            expired += 1
    logger.info("online checkout sweep", extra={"expired": expired})
    return expired


def _expired_at_stripe(payment_id: object, session_id: str, account: str, now: datetime) -> bool:
    """True when the session can no longer be paid; settles a paid one instead."""
    client = stripe_api.client()
    try:
        stripe_api.call(client.v1.checkout.sessions.expire, session_id, account=account)
        return True
    except PaymentProviderUnavailable:
        pass  # already expired or completed, or Stripe is down: ask what it is
    try:
        session = stripe_api.call(client.v1.checkout.sessions.retrieve, session_id, account=account)
    except PaymentProviderUnavailable:
        logger.warning("checkout sweep: Stripe unreachable", extra={"payment_id": str(payment_id)})
        return False
    if session.get("payment_status") == "paid":
        settle.mark_paid(payment_id, str(session.get("payment_intent") or ""), now)  # type: ignore[arg-type]
        return False
    return session.get("status") == "expired"
