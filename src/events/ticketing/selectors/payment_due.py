"""What a buyer of offline tickets owes, and the reference that ties their payment to a ticket.

An offline ticket is paid outside Encore (a bank transfer, cash): the organiser confirms it
by hand ("Mark as paid"), so the buyer needs the amount, the organisation's instructions
and a reference to quote, and the organiser needs to find the ticket from that reference.
"""

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from events.models import Ticket, TicketTier

#: How many hex digits of the ticket id make its reference.
REFERENCE_LENGTH = 8


def payment_reference(ticket_id: uuid.UUID | str) -> str:
    """The reference a buyer quotes when paying an offline ticket, e.g. "3F2A9C1B".

    Derived from the ticket id rather than stored: nothing to migrate or keep in step, the
    same text on every page and e-mail, and a reference the organiser types into "Find
    ticket" finds its ticket with a prefix match on the id (`reference_prefix`). The first
    eight hex digits are enough inside one event, and upper-case hex has no letters that
    read like digits or each other, so it survives being read out or copied by hand.
    """
    return uuid.UUID(str(ticket_id)).hex[:REFERENCE_LENGTH].upper()


def reference_prefix(text: str) -> str | None:
    """The id prefix a typed reference stands for (lower-case hex), or None if `text`
    is not a reference (wrong length, or not hex)."""
    cleaned = text.strip().replace("-", "").replace(" ", "").lower()
    if len(cleaned) != REFERENCE_LENGTH:
        return None
    try:
        int(cleaned, 16)
    except ValueError:
        return None
    return cleaned


def ticket_price(tier: TicketTier) -> Decimal:
    """What one ticket of the tier costs the buyer: its price and the booking fee."""
    return tier.price + tier.fee


class HeldTicket(Protocol):
    """A ticket as the event page knows it (`TicketState`, or a `Ticket`)."""

    @property
    def id(self) -> object: ...

    @property
    def tier_id(self) -> object: ...

    @property
    def status(self) -> str: ...


@dataclass(frozen=True)
class DueTicket:
    tier_name: str
    amount: Decimal
    currency: str
    reference: str


@dataclass(frozen=True)
class OfflineDue:
    """The buyer's unpaid offline tickets at one event, their total per currency, and
    the organisation's instructions."""

    tickets: tuple[DueTicket, ...]
    totals: tuple[tuple[Decimal, str], ...]
    instructions: str


def offline_due(
    tickets: Iterable[HeldTicket], tiers: Sequence[TicketTier], instructions: str
) -> OfflineDue | None:
    """The buyer's pending tickets of offline tiers, or None when nothing is owed.

    `tiers` are the event's tiers as the page already holds them (prefetched), so this
    asks the database nothing.
    """
    by_id = {tier.pk: tier for tier in tiers}
    due: list[DueTicket] = []
    for ticket in tickets:
        tier = by_id.get(ticket.tier_id)  # type: ignore[call-overload]
        if tier is None or ticket.status != Ticket.Status.PENDING:
            continue
        if tier.payment_method != TicketTier.PaymentMethod.OFFLINE:
            continue
        reference = payment_reference(str(ticket.id))
        due.append(DueTicket(tier.name, ticket_price(tier), tier.currency, reference))
    if not due:
        return None
    sums: dict[str, Decimal] = {}
    for item in due:
        sums[item.currency] = sums.get(item.currency, Decimal("0")) + item.amount
    totals = tuple((amount, currency) for currency, amount in sorted(sums.items()))
    return OfflineDue(tuple(due), totals, instructions)
