"""Reads behind the organiser's tickets page: the event's tiers, its tickets found by a
search and paged, one ticket with what is left to refund, and a box-office buyer.

Each read is a fixed number of queries whatever the number of tickets: the refunds
asked for a ticket are summed in the ticket's own query, and a page holds at most
`TICKET_PAGE` rows.
"""

import uuid
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import IntegerField, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from accounts.models import User
from common.errors import first_or_not_found
from events.models import Event, Payment, PaymentRefund, Ticket, TicketTier
from events.ticketing.errors import UnknownTier
from events.ticketing.selectors.payment_due import payment_reference, reference_prefix, ticket_price
from events.utils.money import to_major

#: Tickets per page of the organiser's list.
TICKET_PAGE = 50
#: The longest search text looked at (a longer one is cut, not refused).
QUERY_MAX = 100

AT_THE_DOOR = TicketTier.PaymentMethod.AT_THE_DOOR
FREE = TicketTier.PaymentMethod.FREE


class PaymentState:
    """What the "Payment" column says about a ticket (the template words each)."""

    FREE = "free"
    AWAITING = "awaiting"  # offline, not paid yet
    AWAITING_ONLINE = "awaiting_online"  # at Stripe's checkout
    AT_THE_DOOR = "at_the_door"  # paid when the holder arrives
    PAID = "paid"
    PAID_ONLINE = "paid_online"
    REFUND_REQUESTED = "refund_requested"  # asked of Stripe, not confirmed yet
    PARTLY_REFUNDED = "partly_refunded"
    REFUNDED = "refunded"
    NONE = "none"  # cancelled before it was paid, or never asked for


@dataclass(frozen=True)
class TicketRow:
    """One ticket as the organiser's list shows it, with the actions it allows."""

    id: uuid.UUID
    holder: str
    email: str
    tier_name: str
    status: str
    payment: str
    amount: Decimal
    currency: str
    reference: str
    #: Money given back (online: confirmed by Stripe), and what is asked and not confirmed.
    refunded: Decimal
    refund_pending: Decimal
    #: What a refund may still give back (the refund form's default).
    refundable: Decimal
    paid_online: bool

    @property
    def may_mark_paid(self) -> bool:
        return self.payment == PaymentState.AWAITING

    @property
    def may_refund(self) -> bool:
        return self.status != Ticket.Status.CANCELLED and self.refundable > 0

    @property
    def may_cancel(self) -> bool:
        return self.status != Ticket.Status.CANCELLED


@dataclass(frozen=True)
class TicketPage:
    rows: list[TicketRow]
    number: int
    pages: int
    total: int
    query: str


def event_tiers(event: Event) -> list[TicketTier]:
    """The event's tiers, cheapest first (as buyers see them)."""
    return list(TicketTier.objects.filter(event=event).order_by("price", "name", "pk"))


def event_tier(event: Event, tier_id: uuid.UUID) -> TicketTier:
    """One tier of this event; another event's tier is not found (as the API's 404)."""
    tier = TicketTier.objects.filter(event=event, pk=tier_id).first()
    if tier is None:
        raise UnknownTier()
    return tier


def tier_has_tickets(tier: TicketTier) -> bool:
    """Whether anybody ever held a ticket of the tier (cancelled ones still refer to it)."""
    return Ticket.objects.filter(tier=tier).exists()


def ticket_page(event: Event, query: str = "", number: int = 1) -> TicketPage:
    """One page of the tickets matching `query`, newest first (two queries: the count
    and the rows); a page number past the end shows the last page."""
    query = query.strip()[:QUERY_MAX]
    tickets = _tickets(event).filter(_matching(query))
    total = tickets.count()
    pages = max((total + TICKET_PAGE - 1) // TICKET_PAGE, 1)
    number = min(max(number, 1), pages)
    offset = (number - 1) * TICKET_PAGE
    found = tickets.order_by("-created_at", "-pk")[offset : offset + TICKET_PAGE]
    return TicketPage([ticket_row(t) for t in found], number, pages, total, query)


def event_ticket(event: Event, ticket_id: uuid.UUID) -> TicketRow:
    """One ticket of this event as a row (another event's ticket: 404)."""
    return ticket_row(first_or_not_found(_tickets(event).filter(pk=ticket_id), "Ticket not found."))


def buyer_by_email(email: str) -> User | None:
    """The active account a box-office sale is for (e-mail addresses are unique)."""
    return User.objects.filter(email__iexact=email.strip(), is_active=True).first()


def ticket_row(ticket: Ticket) -> TicketRow:
    """`ticket` from `_tickets` (tier, user and payment loaded, refund sums annotated)."""
    tier, payment = ticket.tier, ticket.payment
    if payment is not None:
        currency = payment.currency
        minor = int(payment.ticket_amounts.get(str(ticket.pk), 0))
        asked, done = int(ticket.refund_asked), int(ticket.refund_done)  # type: ignore[attr-defined]
        if _refunded_in_full(ticket):
            # Stripe confirmed it all (its total, or a refund made in Stripe's dashboard).
            asked = done = max(minor, asked)
        amount = to_major(minor, currency)
        refunded = to_major(done, currency)
        pending = to_major(asked - done, currency)
        refundable = to_major(minor - asked, currency) if ticket.paid_at else Decimal("0")
    else:
        currency, amount = tier.currency, ticket_price(tier)
        refunded = amount if _refunded_in_full(ticket) else Decimal("0")
        pending = Decimal("0")
        refundable = amount if ticket.paid_at and amount > 0 else Decimal("0")
    return TicketRow(
        id=ticket.pk,
        holder=ticket.holder_name or ticket.user.display_name,
        email=ticket.user.email,
        tier_name=tier.name,
        status=ticket.status,
        payment=_payment_state(ticket, amount, refunded, pending),
        amount=amount,
        currency=currency,
        reference=payment_reference(ticket.pk),
        refunded=refunded,
        refund_pending=pending,
        refundable=refundable,
        paid_online=payment is not None,
    )


def _refunded_in_full(ticket: Ticket) -> bool:
    payment = ticket.payment
    return ticket.cancellation_reason == Ticket.CancellationReason.REFUNDED or (
        payment is not None and payment.status == Payment.Status.REFUNDED
    )


def _payment_state(ticket: Ticket, amount: Decimal, refunded: Decimal, pending: Decimal) -> str:
    if pending > 0:
        return PaymentState.REFUND_REQUESTED
    if refunded > 0:
        return PaymentState.REFUNDED if refunded >= amount else PaymentState.PARTLY_REFUNDED
    if ticket.paid_at is not None:
        return PaymentState.PAID_ONLINE if ticket.payment_id else PaymentState.PAID
    if ticket.status == Ticket.Status.PENDING:
        return PaymentState.AWAITING_ONLINE if ticket.payment_id else PaymentState.AWAITING
    if ticket.status == Ticket.Status.CANCELLED:
        return PaymentState.NONE
    if ticket.tier.payment_method == AT_THE_DOOR and amount > 0:
        return PaymentState.AT_THE_DOOR
    if amount <= 0 or ticket.tier.payment_method == FREE:
        return PaymentState.FREE
    return PaymentState.NONE


def _tickets(event: Event) -> QuerySet[Ticket]:
    """The event's tickets with what the rows show: tier, holder, payment, and the sums
    of the refunds asked (not failed) and confirmed, in minor units."""
    refunds = PaymentRefund.objects.filter(ticket=OuterRef("pk")).order_by().values("ticket")
    asked = refunds.exclude(status=PaymentRefund.Status.FAILED).annotate(n=Sum("amount"))
    done = refunds.filter(status=PaymentRefund.Status.SUCCEEDED).annotate(n=Sum("amount"))
    zero = Value(0, output_field=IntegerField())
    return (
        Ticket.objects.filter(event=event)
        .select_related("tier", "user", "payment")
        .annotate(
            refund_asked=Coalesce(Subquery(asked.values("n")), zero),
            refund_done=Coalesce(Subquery(done.values("n")), zero),
        )
    )


def _matching(query: str) -> Q:
    """Holder, e-mail, account names, ticket type, or a payment reference."""
    if not query:
        return Q()
    found = (
        Q(holder_name__icontains=query)
        | Q(user__email__icontains=query)
        | Q(user__first_name__icontains=query)
        | Q(user__last_name__icontains=query)
        | Q(user__preferred_name__icontains=query)
        | Q(tier__name__icontains=query)
    )
    prefix = reference_prefix(query)
    if prefix is not None:
        found |= Q(id__startswith=prefix)
    return found
