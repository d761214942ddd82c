"""Stripe's webhooks: checked, recorded once, then applied (ADR 0027).

1. The signature (`Stripe-Signature: t=…,v1=…`, HMAC-SHA256 of "t.payload" with the
   endpoint secret, within Stripe's tolerance) is checked by the official library;
   anything else is a 400 and nothing is recorded.
   The event's fields are then read into `stripe_events.StripeEvent`: a field of the
   wrong type is a 400 too, never an exception in a handler.
2. The event's id is inserted into `StripeEvent` (unique) in the same transaction that
   applies it: a duplicate delivery, also a concurrent one, finds the row and is
   answered 200 without doing anything twice.
3. Order does not matter: every handler reads the payment under its lock and moves it
   only forward (`settle`), and refunds carry Stripe's cumulative total.

A provider call a handler needs (finding the payment of a refund that came before the
`completed` event) is made before the transaction, never under a lock.
"""

import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any

import stripe
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from events.models import Payment, PaymentRefund, StripeEvent
from events.ticketing.errors import InvalidSignature, PaymentProviderUnavailable
from events.ticketing.services.payments import settle, stripe_api
from events.ticketing.services.payments.stripe_events import StripeObject, parse_event

logger = logging.getLogger("encore.payments")


@dataclass(frozen=True)
class WebhookResult:
    duplicate: bool
    outcome: str


def handle_webhook(payload: bytes, signature: str | None) -> WebhookResult:
    event = parse_event(_verified(payload, signature))
    stripe_id, kind, obj, account = event.id, event.type, event.data.object, event.account or ""
    if StripeEvent.objects.filter(stripe_id=stripe_id).exists():
        return WebhookResult(duplicate=True, outcome="duplicate")
    payment_id = _payment_of(kind, obj, account)
    try:
        with transaction.atomic():
            record = StripeEvent.objects.create(stripe_id=stripe_id, type=kind, account=account)
            outcome = _apply(kind, obj, payment_id) if payment_id else "unknown_payment"
            record.outcome = outcome
            record.save(update_fields=["outcome", "updated_at"])
    except IntegrityError:
        return WebhookResult(duplicate=True, outcome="duplicate")
    logger.info(
        "stripe webhook", extra={"stripe_event": stripe_id, "type": kind, "outcome": outcome}
    )
    if outcome == "late_payment" and payment_id:
        _refund_late_payment(payment_id)
    elif outcome == "paid_with_cancelled" and payment_id:
        _refund_cancelled_tickets(payment_id)
    return WebhookResult(duplicate=False, outcome=outcome)


def _verified(payload: bytes, signature: str | None) -> dict[str, Any]:
    secret = settings.STRIPE_WEBHOOK_SECRET
    # A header is text of any characters; a signature is ASCII (the library's comparison
    # refuses anything else with a TypeError).
    if not secret or not signature or not signature.isascii():
        raise InvalidSignature()
    try:
        text = payload.decode("utf-8")
        stripe.WebhookSignature.verify_header(
            text, signature, secret, settings.STRIPE_WEBHOOK_TOLERANCE_SECONDS
        )
        body = json.loads(text)
    except (
        stripe.SignatureVerificationError,
        UnicodeDecodeError,
        ValueError,
        RecursionError,
    ) as exc:
        raise InvalidSignature() from exc
    if not isinstance(body, dict):
        raise InvalidSignature("The event is not a JSON object.")
    return body


def _apply(kind: str, obj: StripeObject, payment_id: uuid.UUID) -> str:
    now = timezone.now()
    if kind in ("checkout.session.completed", "checkout.session.async_payment_succeeded"):
        if obj.payment_status not in ("paid", "no_payment_required"):
            return "awaiting_payment"  # a delayed method: async_payment_succeeded follows
        return settle.mark_paid(payment_id, obj.payment_intent or "", now)
    if kind in ("checkout.session.expired", "checkout.session.async_payment_failed"):
        released = settle.release_unpaid(payment_id, Payment.Status.EXPIRED, now)
        return "expired" if released else "noop"
    if kind == "charge.refunded":
        total = obj.amount_refunded or 0
        return settle.apply_refunded_total(payment_id, total, obj.payment_intent or "", now)
    if kind.startswith("charge.dispute."):
        return settle.record_dispute(payment_id, obj.status or "", obj.reason or "", now)
    return "ignored"


def _payment_of(kind: str, obj: StripeObject, account: str) -> uuid.UUID | None:
    """The Encore payment an event is about: by session id, by payment intent, or (a
    refund or dispute that came before the `completed` event) by the intent's metadata,
    read from Stripe."""
    if kind.startswith("checkout.session."):
        found = Payment.objects.filter(checkout_session_id=obj.id or "-")
        by_meta = _uuid((obj.metadata or {}).get("encore_payment_id"))
        pk = found.values_list("pk", flat=True).first()
        return pk or (by_meta if by_meta and Payment.objects.filter(pk=by_meta).exists() else None)
    intent = obj.payment_intent or ""
    if not intent:
        return None
    pk = Payment.objects.filter(payment_intent_id=intent).values_list("pk", flat=True).first()
    if pk is not None:
        return pk
    return _payment_of_intent(intent, account)


def _payment_of_intent(intent: str, account: str) -> uuid.UUID | None:
    if not account:
        return None
    client = stripe_api.client()
    # Unreachable, Stripe answers 502 and Stripe retries the webhook; an intent Stripe
    # does not know for that account is no payment of Encore's.
    found = stripe_api.find(client.v1.payment_intents.retrieve, intent, account=account)
    if found is None:
        return None
    pk = _uuid((found.get("metadata") or {}).get("encore_payment_id"))
    if pk is None or not Payment.objects.filter(pk=pk, stripe_account=account).exists():
        return None
    return pk


def _refund_late_payment(payment_id: uuid.UUID) -> None:
    """Paid after Encore had given the seats up: the money goes back in full."""
    payment = Payment.objects.get(pk=payment_id)
    if payment.payment_intent_id:
        _send_refund(payment, None, f"encore-late-{payment.pk}")


def _refund_cancelled_tickets(payment_id: uuid.UUID) -> None:
    """Paid with some tickets cancelled while the checkout was open: their amounts back."""
    payment = Payment.objects.get(pk=payment_id)
    owed = payment.refunds.filter(
        status=PaymentRefund.Status.REQUESTED, stripe_refund_id__isnull=True
    )
    for refund in owed:
        answer = _send_refund(payment, refund.amount, f"encore-refund-{refund.pk}")
        if answer is not None:
            PaymentRefund.objects.filter(pk=refund.pk).update(stripe_refund_id=str(answer["id"]))


def _send_refund(payment: Payment, amount: int | None, key: str) -> dict[str, Any] | None:
    params: dict[str, Any] = {
        "payment_intent": payment.payment_intent_id,
        "metadata": {"encore_payment_id": str(payment.pk), "reason": "seats_already_released"},
    }
    if amount is not None:
        params["amount"] = amount
    client = stripe_api.client()
    try:
        return stripe_api.call(
            client.v1.refunds.create, account=payment.stripe_account, idempotency_key=key, **params
        )
    except PaymentProviderUnavailable:
        # The event is recorded; the operator sees this line and refunds by hand.
        logger.error("refund of released seats failed", extra={"payment_id": str(payment.pk)})
        return None


def _uuid(value: object) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError):
        return None
