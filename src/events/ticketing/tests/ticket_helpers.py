"""Shared helpers of the ticket tests: a ticketed event, tiers, buying, the counter invariant."""

from typing import Any

from accounts.models import User
from events.core.tests.factories import make_event, make_tier
from events.models import Event, Ticket, TicketTier
from events.ticketing.services.batch_tickets import BatchTicketService, CartItem


def ticketed_event(**fields: Any) -> Event:
    fields.setdefault("requires_ticket", True)
    return make_event(**fields)


def free_tier(event: Event, **fields: Any) -> TicketTier:
    fields.setdefault("payment_method", TicketTier.PaymentMethod.FREE)
    return make_tier(event, **fields)


def offline_tier(event: Event, **fields: Any) -> TicketTier:
    fields.setdefault("payment_method", TicketTier.PaymentMethod.OFFLINE)
    fields.setdefault("price", "25.00")
    return make_tier(event, **fields)


def assert_counters_true(event: Event) -> None:
    """attendee_count and every tier's quantity_sold equal the real non-cancelled tickets."""
    event.refresh_from_db()
    live = Ticket.objects.filter(event=event).exclude(status=Ticket.Status.CANCELLED)
    assert event.attendee_count == live.count()
    for tier in TicketTier.objects.filter(event=event):
        assert tier.quantity_sold == live.filter(tier=tier).count(), tier.name


def buy(event: Event, tier: TicketTier, user: User, count: int = 1) -> list[Ticket]:
    """Buy `count` tickets of one tier through the checkout service (gates, locks, counters)."""
    return BatchTicketService(event, user).create_batch([CartItem(tier.pk, count)])


def cart(*lines: tuple[TicketTier, int]) -> dict[str, Any]:
    return {"items": [{"tier_id": str(tier.pk), "count": count} for tier, count in lines]}


def checkout(api: Any, user: Any, event: Event, body: Any) -> Any:
    return api(user).post(f"/events/{event.pk}/checkout", body)
