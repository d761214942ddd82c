"""/event-admin/{event_id} ticket routes: the permission matrix covers every route (tiers,
tickets, box office), and a sub-object of another event is a 404.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_tickets, make_staff
from events.models import Event, StaffPermission, Ticket, TicketTier
from events.ticketing.tests.ticket_helpers import (
    assert_counters_true,
    buy,
    free_tier,
    offline_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db


P = StaffPermission


# -- the permission matrix --------------------------------------------------------------------
@dataclass
class EventWorld:
    event: Event
    tier: TicketTier
    paid_tier: TicketTier
    spare_tier: TicketTier
    ticket: Ticket
    pending: Ticket
    buyer: User

    @classmethod
    def build(cls, **event_fields: Any) -> "EventWorld":
        now = timezone.now()
        event_fields.setdefault("check_in_starts_at", now - timedelta(hours=1))
        event = ticketed_event(**event_fields)
        tier, paid_tier = free_tier(event), offline_tier(event)
        spare = free_tier(event)
        holder = make_user()
        [ticket] = buy(event, tier, holder) if event.status == Event.Status.OPEN else _seat(tier)
        [pending] = buy(event, paid_tier, holder) if event.status == Event.Status.OPEN else [ticket]
        return cls(event, tier, paid_tier, spare, ticket, pending, make_user())

    def ids(self) -> dict[str, str]:
        return {
            "event": str(self.event.pk),
            "tier": str(self.tier.pk),
            "spare_tier": str(self.spare_tier.pk),
            "ticket": str(self.ticket.pk),
            "pending": str(self.pending.pk),
        }


def _seat(tier: TicketTier) -> list[Ticket]:
    fill_with_tickets(tier.event, tier, 1)
    return list(Ticket.objects.filter(tier=tier))


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    permission: str
    ok: int
    body: Callable[["EventWorld"], Any] | None = None
    sub_object: str | None = None

    def url(self, world: EventWorld, sub_from: EventWorld | None = None) -> str:
        ids = world.ids()
        if sub_from is not None and self.sub_object:
            ids[self.sub_object] = sub_from.ids()[self.sub_object]
        return "/event-admin/" + self.path.format(**ids)

    def call(self, client: Any, world: EventWorld, sub_from: EventWorld | None = None) -> Any:
        body = self.body(sub_from or world) if self.body else None
        return getattr(client, self.method)(self.url(world, sub_from), body)


ROUTES = [
    Route("get", "{event}/ticket-tiers", P.MANAGE_TICKETS, 200),
    Route("post", "{event}/ticket-tiers", P.MANAGE_TICKETS, 201, lambda w: {"name": "VIP"}),
    Route(
        "patch",
        "{event}/ticket-tiers/{spare_tier}",
        P.MANAGE_TICKETS,
        200,
        lambda w: {"name": "Renamed"},
        "spare_tier",
    ),
    Route("delete", "{event}/ticket-tiers/{spare_tier}", P.MANAGE_TICKETS, 204, None, "spare_tier"),
    Route("get", "{event}/tickets", P.MANAGE_TICKETS, 200),
    Route(
        "post",
        "{event}/tickets/{pending}/confirm-payment",
        P.MANAGE_TICKETS,
        200,
        None,
        "pending",
    ),
    Route("post", "{event}/tickets/{ticket}/cancel", P.MANAGE_TICKETS, 200, None, "ticket"),
    Route("post", "{event}/tickets/{ticket}/refund", P.MANAGE_TICKETS, 200, None, "ticket"),
    Route("post", "{event}/tickets/{ticket}/check-in", P.CHECK_IN_ATTENDEES, 200, None, "ticket"),
    Route(
        "post",
        "{event}/box-office/sell",
        P.MANAGE_TICKETS,
        201,
        lambda w: {"user_id": str(w.buyer.pk), "tier_id": str(w.tier.pk)},
        "tier",
    ),
]
ROUTE_IDS = [f"{r.method} {r.path}" for r in ROUTES]


def snapshot() -> tuple[Any, ...]:
    tickets = sorted(Ticket.objects.values_list("pk", "status", "cancellation_reason"))
    tiers = sorted(TicketTier.objects.values_list("pk", "name", "quantity_sold"))
    events = sorted(Event.objects.values_list("pk", "attendee_count"))
    return tickets, tiers, events


def expect_refusal(response: Any, status: int, before: tuple[Any, ...]) -> None:
    assert response.status_code == status, response.content
    assert response.json()["code"]
    assert snapshot() == before


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
class TestPermissionMatrix:
    def test_anonymous_is_401(self, api, route):
        world = EventWorld.build()
        before = snapshot()
        expect_refusal(route.call(api(None), world), 401, before)

    def test_user_without_any_role_is_403_on_a_visible_event(self, api, route):
        world = EventWorld.build()
        before = snapshot()
        expect_refusal(route.call(api(make_user()), world), 403, before)

    def test_user_without_any_role_is_404_on_an_invisible_event(self, api, route):
        world = EventWorld.build(status=Event.Status.DRAFT)
        before = snapshot()
        expect_refusal(route.call(api(make_user()), world), 404, before)

    def test_staff_with_the_permission_off_is_403(self, api, route):
        world = EventWorld.build()
        staff = make_staff(world.event.organization, **{route.permission: False})
        before = snapshot()
        expect_refusal(route.call(api(staff), world), 403, before)

    def test_staff_of_another_organisation_is_403(self, api, route):
        world = EventWorld.build()
        stranger = make_staff(EventWorld.build().event.organization)
        before = snapshot()
        expect_refusal(route.call(api(stranger), world), 403, before)

    def test_staff_with_the_permission_succeeds(self, api, route):
        world = EventWorld.build()
        staff = make_staff(world.event.organization, **{route.permission: True})
        response = route.call(api(staff), world)
        assert response.status_code == route.ok, response.content
        assert_counters_true(world.event)

    def test_owner_succeeds(self, api, route):
        world = EventWorld.build()
        response = route.call(api(world.event.organization.owner), world)
        assert response.status_code == route.ok, response.content


SUB_OBJECT_ROUTES = [route for route in ROUTES if route.sub_object]


@pytest.mark.parametrize(
    "route", SUB_OBJECT_ROUTES, ids=[f"{r.method} {r.path}" for r in SUB_OBJECT_ROUTES]
)
def test_sub_object_of_another_event_is_404(api, route):
    world = EventWorld.build()
    other = EventWorld.build(organization=world.event.organization)
    owner = world.event.organization.owner
    before = snapshot()
    expect_refusal(route.call(api(owner), world, sub_from=other), 404, before)
