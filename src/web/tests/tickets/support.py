"""Shared setup of the tickets page tests: an organiser's ticketed event with an offline
tier, the page's paths, a buyer with a pending offline ticket, Stripe switched on."""

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.test import Client

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_org
from events.models import Event, StripeConnection, Ticket, TicketTier
from events.ticketing.tests.stripe_stub import ACCOUNT
from events.ticketing.tests.ticket_helpers import buy, offline_tier, ticketed_event
from web.tests.manage.helpers import signed_in_client


@dataclass
class Box:
    owner: User
    event: Event
    tier: TicketTier
    client: Client

    @property
    def page(self) -> str:
        return f"/manage/events/{self.event.pk}/tickets"

    def ticket_path(self, ticket: Ticket, action: str) -> str:
        return f"{self.page}/{ticket.pk}/{action}"

    def tier_path(self, tier: TicketTier, action: str) -> str:
        return f"{self.page}/types/{tier.pk}/{action}"


def box_office(**event_fields: Any) -> Box:
    """An owner signed in on a ticketed event with one offline tier (25.00 EUR, 10 seats)."""
    owner = make_user()
    event_fields.setdefault("name", "Jazz Night")
    event = ticketed_event(organization=make_org(owner), **event_fields)
    tier = offline_tier(event, name="Standing", total_quantity=10)
    return Box(owner, event, tier, signed_in_client(owner))


def pending_ticket(box: Box, user: User | None = None) -> Ticket:
    """A buyer's offline ticket, awaiting payment (bought through the checkout service)."""
    [ticket] = buy(box.event, box.tier, user or make_user(email=None))
    return ticket


def payments_on(settings: Any, event: Event) -> None:
    """The platform's Stripe key and the organisation's account: "Online" is offered."""
    settings.STRIPE_SECRET_KEY = settings.STRIPE_SECRET_KEY or "sk_test_encore_stub"
    connect_stripe(event)


def connect_stripe(event: Event) -> None:
    """The organisation's Stripe account (the stub's), able to take charges."""
    StripeConnection.objects.get_or_create(
        organization=event.organization, defaults={"account_id": ACCOUNT, "charges_enabled": True}
    )


def body(response: Any) -> str:
    return response.content.decode()


def confirmed(data: dict[str, str] | None = None) -> dict[str, str]:
    """A POST that already said yes to the confirmation step."""
    return {**(data or {}), "confirmed": "yes"}


PRICE = Decimal("25.00")
