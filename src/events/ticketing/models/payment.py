"""Online payments through Stripe (issue 14, ADR 0026 and 0027).

No card data ever reaches Encore: the buyer pays on Stripe's Checkout page, and Encore
keeps only Stripe's ids, the amounts and the states the webhooks report. Amounts are
integers in the currency's minor unit, as Stripe counts them, so a refund never loses
a cent to rounding.
"""

from django.conf import settings
from django.db import models

from common.models import TimeStampedModel
from events.core.models.event import Event
from events.core.models.organization import Organization


class StripeConnection(TimeStampedModel):
    """An organisation's connected Stripe account (Connect, ADR 0026): only the account
    id is kept, the money goes straight to the organiser, Encore holds no secret of theirs."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="stripe_connection"
    )
    account_id = models.CharField(max_length=64, unique=True)
    charges_enabled = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.organization} – {self.account_id}"


class Payment(TimeStampedModel):
    """One Checkout Session: the pending tickets it pays for point at it (`Ticket.payment`)."""

    class Status(models.TextChoices):
        OPEN = "open"  # session created (or being created), tickets pending
        PAID = "paid"
        PARTIALLY_REFUNDED = "partially_refunded"
        REFUNDED = "refunded"
        EXPIRED = "expired"  # never paid; its tickets were cancelled
        FAILED = "failed"  # Stripe refused or was unreachable; its tickets were cancelled

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="payments")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="payments"
    )
    stripe_account = models.CharField(max_length=64)
    checkout_session_id = models.CharField(max_length=255, unique=True, null=True, blank=True)
    checkout_url = models.TextField(blank=True)
    payment_intent_id = models.CharField(max_length=255, blank=True, db_index=True)
    currency = models.CharField(max_length=3)
    amount = models.PositiveBigIntegerField(help_text="Minor units (cents).")
    refunded_amount = models.PositiveBigIntegerField(default=0)
    #: What each ticket cost, minor units: {ticket id: amount}. A refund frees a ticket's
    #: seat once its own amount is refunded.
    ticket_amounts = models.JSONField(default=dict)
    status = models.CharField(
        max_length=24, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    expires_at = models.DateTimeField(db_index=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    dispute_status = models.CharField(max_length=32, blank=True)
    dispute_reason = models.CharField(max_length=64, blank=True)
    disputed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.checkout_session_id or self.pk} ({self.status})"


class PaymentRefund(TimeStampedModel):
    """A refund Encore asked Stripe for; the seat is freed only when `charge.refunded`
    confirms it (issue 14: money moves through Stripe, seats follow)."""

    class Status(models.TextChoices):
        REQUESTED = "requested"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    payment = models.ForeignKey(Payment, on_delete=models.CASCADE, related_name="refunds")
    ticket = models.ForeignKey(
        "events.Ticket", on_delete=models.SET_NULL, null=True, blank=True, related_name="refunds"
    )
    amount = models.PositiveBigIntegerField()
    stripe_refund_id = models.CharField(max_length=255, unique=True, null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.REQUESTED, db_index=True
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.stripe_refund_id or self.pk} {self.amount} ({self.status})"


class StripeEvent(TimeStampedModel):
    """Every webhook event received, once: its id is unique, so a duplicate delivery
    finds the row and changes nothing (ADR 0027)."""

    stripe_id = models.CharField(max_length=255, unique=True)
    type = models.CharField(max_length=64)
    account = models.CharField(max_length=64, blank=True)
    outcome = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.stripe_id} {self.type}"
