"""Ticket tiers and tickets. Every non-cancelled ticket holds a seat."""

from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from common.models import TimeStampedModel
from events.core.models.event import Event


class TicketTier(TimeStampedModel):
    class PaymentMethod(models.TextChoices):
        FREE = "free"
        OFFLINE = "offline"
        AT_THE_DOOR = "at_the_door"
        ONLINE = "online"  # paid through Stripe Checkout (issue 14)

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="ticket_tiers")
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    price = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0"))],
    )
    currency = models.CharField(max_length=3, default="EUR")
    payment_method = models.CharField(
        max_length=16, choices=PaymentMethod.choices, default=PaymentMethod.FREE
    )
    total_quantity = models.PositiveIntegerField(
        null=True, blank=True, help_text="Empty = unlimited."
    )
    quantity_sold = models.PositiveIntegerField(default=0, editable=False)
    sales_start_at = models.DateTimeField(null=True, blank=True)
    sales_end_at = models.DateTimeField(null=True, blank=True)
    max_tickets_per_user = models.PositiveIntegerField(null=True, blank=True)
    payment_due_hours = models.PositiveIntegerField(default=72)
    #: A booking fee per ticket, charged on top of the price (online payment shows it).
    fee = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0"))],
    )
    #: The tax rate included in the price, in percent (shown on receipts; Encore adds none).
    tax_rate = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
    )
    #: Holders may refund an online ticket themselves until then; empty = they may not.
    refund_deadline = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["price", "name"]
        constraints = [
            models.UniqueConstraint(fields=["event", "name"], name="unique_tier_name"),
            models.CheckConstraint(
                condition=models.Q(price__gte=0), name="tier_price_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} – {self.name}"

    @property
    def remaining(self) -> int | None:
        if self.total_quantity is None:
            return None
        return max(self.total_quantity - self.quantity_sold, 0)

    def is_on_sale(self, now: datetime) -> bool:
        """Inside the tier's sale window (an empty bound is open)."""
        starts, ends = self.sales_start_at, self.sales_end_at
        return (starts is None or starts <= now) and (ends is None or ends > now)

    def clean(self) -> None:
        if self.sales_start_at and self.sales_end_at and self.sales_end_at <= self.sales_start_at:
            raise ValidationError({"sales_end_at": ["Sales must end after they start."]})
        if self.total_quantity is not None and self.total_quantity < self.quantity_sold:
            raise ValidationError({"total_quantity": ["Cannot be below the tickets already sold."]})
        if self.payment_method == self.PaymentMethod.ONLINE and self.price <= 0:
            raise ValidationError({"price": ["A tier paid online needs a price above 0."]})


class Ticket(TimeStampedModel):
    class Status(models.TextChoices):
        PENDING = "pending"
        ACTIVE = "active"
        CHECKED_IN = "checked_in"
        CANCELLED = "cancelled"

    class CancellationReason(models.TextChoices):
        USER = "user"
        STAFF = "staff"
        REFUNDED = "refunded"
        UNPAID = "unpaid"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="tickets")
    tier = models.ForeignKey(TicketTier, on_delete=models.PROTECT, related_name="tickets")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tickets"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.ACTIVE, db_index=True
    )
    holder_name = models.CharField(max_length=200, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    cancellation_reason = models.CharField(
        max_length=16, choices=CancellationReason.choices, blank=True
    )
    #: The Stripe Checkout this ticket is paid through (online tiers only).
    payment = models.ForeignKey(
        "events.Payment",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tickets",
    )

    class Meta:
        ordering = ["created_at"]
        indexes = [
            models.Index(fields=["event", "user", "status"], name="ticket_event_user_status")
        ]

    def __str__(self) -> str:
        return f"{self.user} – {self.tier} ({self.status})"

    @property
    def holds_seat(self) -> bool:
        return self.status != self.Status.CANCELLED
