"""An event's takings for the organiser's overview: paid, pending and refunded, per currency.

Two sources, each read with one grouped query whatever the number of tickets:

- online checkouts (`Payment`, Stripe): a paid checkout counts its whole amount as paid
  (also once partly or fully refunded), its `refunded_amount` as refunded; an open one
  is pending. Expired or failed checkouts were never paid and count nowhere.
- tickets paid outside Encore (offline or at the door: no `Payment`, a price above
  zero): one paid (`paid_at`) counts its price and fee as paid, and also as refunded
  once cancelled as `refunded`; a pending one is pending.

Paid is what came in; refunded is what went back out of it, so paid − refunded is what
the organiser keeps. Currencies are never added together.
"""

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import DecimalField, F, Q, Sum, Value
from django.db.models.functions import Coalesce

from events.models import Event, Payment, Ticket
from events.utils.money import ZERO_DECIMAL, to_major

ZERO = Decimal("0")
PAID_CHECKOUTS = (
    Payment.Status.PAID,
    Payment.Status.PARTIALLY_REFUNDED,
    Payment.Status.REFUNDED,
)


@dataclass(frozen=True)
class Revenue:
    """One currency's takings, in major units."""

    currency: str
    paid: Decimal
    pending: Decimal
    refunded: Decimal


def event_revenue(event: Event) -> list[Revenue]:
    """The event's takings per currency (alphabetical); [] for an event that sells nothing."""
    totals: dict[str, list[Decimal]] = defaultdict(lambda: [ZERO, ZERO, ZERO])
    for currency, *amounts in [*_online(event), *_offline(event)]:
        row = totals[currency]
        for index, amount in enumerate(amounts):
            row[index] += amount
    return [
        Revenue(currency, *(_rounded(amount, currency) for amount in amounts))
        for currency, amounts in sorted(totals.items())
    ]


def _rounded(amount: Decimal, currency: str) -> Decimal:
    return amount.quantize(Decimal("1") if currency.upper() in ZERO_DECIMAL else Decimal("0.01"))


def _online(event: Event) -> list[tuple[str, Decimal, Decimal, Decimal]]:
    """Checkouts are counted in minor units (Stripe's): turned into major ones here."""
    paid = Q(status__in=PAID_CHECKOUTS)
    rows = (
        Payment.objects.filter(event=event)
        .filter(paid | Q(status=Payment.Status.OPEN))
        .values("currency")
        .annotate(
            paid=Coalesce(Sum("amount", filter=paid), 0),
            pending=Coalesce(Sum("amount", filter=Q(status=Payment.Status.OPEN)), 0),
            refunded=Coalesce(Sum("refunded_amount", filter=paid), 0),
        )
        .order_by()
    )
    return [
        (
            r["currency"],
            to_major(r["paid"], r["currency"]),
            to_major(r["pending"], r["currency"]),
            to_major(r["refunded"], r["currency"]),
        )
        for r in rows
    ]


def _offline(event: Event) -> list[tuple[str, Decimal, Decimal, Decimal]]:
    money: DecimalField[Decimal, Decimal] = DecimalField(max_digits=14, decimal_places=2)
    price = F("tier__price") + F("tier__fee")
    zero = Value(ZERO, output_field=money)
    was_paid = Q(paid_at__isnull=False)
    refunded = was_paid & Q(
        status=Ticket.Status.CANCELLED, cancellation_reason=Ticket.CancellationReason.REFUNDED
    )
    rows = (
        Ticket.objects.filter(event=event, payment__isnull=True, tier__price__gt=0)
        .values("tier__currency")
        .annotate(
            paid=Coalesce(Sum(price, filter=was_paid, output_field=money), zero),
            pending=Coalesce(
                Sum(price, filter=Q(status=Ticket.Status.PENDING), output_field=money), zero
            ),
            refunded=Coalesce(Sum(price, filter=refunded, output_field=money), zero),
        )
        .order_by()
    )
    return [
        (r["tier__currency"], Decimal(r["paid"]), Decimal(r["pending"]), Decimal(r["refunded"]))
        for r in rows
    ]
