"""/event-admin/{event_id}: ticket tiers, tickets (confirm, cancel, refund, check-in) and the
box office. A permission matrix covers every route; then each route's behaviour."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.models import (
    Event,
    EventWaitList,
    StaffPermission,
    Ticket,
    TicketTier,
)
from events.service import ticket_tier_service
from events.tests.factories import fill_with_tickets, make_staff
from events.tests.ticket_helpers import (
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


# -- tiers ------------------------------------------------------------------------------------
def tiers_url(event: Event, tier: TicketTier | None = None) -> str:
    base = f"/event-admin/{event.pk}/ticket-tiers"
    return f"{base}/{tier.pk}" if tier else base


class TestTiers:
    def test_create_tier_with_every_field(self, api):
        event = ticketed_event()
        owner = event.organization.owner
        starts = timezone.now() + timedelta(days=1)
        body = {
            "name": "Supporter",
            "description": "Thanks!",
            "price": "30.00",
            "currency": "CHF",
            "payment_method": "offline",
            "total_quantity": 50,
            "sales_start_at": starts.isoformat(),
            "sales_end_at": (starts + timedelta(days=2)).isoformat(),
            "max_tickets_per_user": 2,
            "payment_due_hours": 24,
        }

        response = api(owner).post(tiers_url(event), body)

        assert response.status_code == 201, response.json()
        data = response.json()
        assert data["quantity_sold"] == 0
        assert data["remaining"] == 50
        assert Decimal(data["price"]) == Decimal("30.00")
        tier = TicketTier.objects.get(pk=data["id"])
        assert (tier.event_id, tier.payment_method, tier.payment_due_hours) == (
            event.pk,
            "offline",
            24,
        )

    def test_list_tiers_shows_quantity_sold(self, api):
        event = ticketed_event()
        tier = free_tier(event, total_quantity=5)
        fill_with_tickets(event, tier, 2)

        response = api(event.organization.owner).get(tiers_url(event))

        assert response.status_code == 200
        [row] = response.json()
        assert (row["quantity_sold"], row["remaining"]) == (2, 3)

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"name": "Cheap", "price": "-1"}, "price"),
            ({"name": "Huge", "price": "123456789012.00"}, "price"),
            ({"name": "Taken"}, "__all__"),
        ],
        ids=["negative-price", "too-many-digits", "duplicate-name"],
    )
    def test_invalid_tier_is_400_and_not_created(self, api, body, field):
        event = ticketed_event()
        free_tier(event, name="Taken")

        response = api(event.organization.owner).post(tiers_url(event), body)

        assert response.status_code == 400
        assert response.json()["code"] == "invalid"
        assert field in response.json()["errors"]
        assert TicketTier.objects.filter(event=event).count() == 1

    def test_sale_window_must_end_after_it_starts(self, api):
        event = ticketed_event()
        now = timezone.now()
        body = {
            "name": "Backwards",
            "sales_start_at": now.isoformat(),
            "sales_end_at": (now - timedelta(hours=1)).isoformat(),
        }

        response = api(event.organization.owner).post(tiers_url(event), body)

        assert response.status_code == 400
        assert "sales_end_at" in response.json()["errors"]

    @pytest.mark.parametrize(
        "body",
        [
            {"name": "Naive", "sales_start_at": "2030-01-01T10:00:00"},
            {"name": "Odd", "payment_method": "bitcoin"},
            {"name": "Odd", "total_quantity": -1},
            {"name": "Odd", "unknown": 1},
            {"name": ""},
        ],
    )
    def test_schema_violations_are_422(self, api, body):
        event = ticketed_event()

        response = api(event.organization.owner).post(tiers_url(event), body)

        assert response.status_code == 422
        assert not TicketTier.objects.filter(event=event).exists()

    def test_total_quantity_cannot_go_below_what_was_sold(self, api):
        event = ticketed_event()
        tier = free_tier(event, total_quantity=10)
        fill_with_tickets(event, tier, 4)

        response = api(event.organization.owner).patch(
            tiers_url(event, tier), {"total_quantity": 3}
        )

        assert response.status_code == 400
        assert "total_quantity" in response.json()["errors"]
        tier.refresh_from_db()
        assert tier.total_quantity == 10

    def test_more_to_sell_enqueues_waitlist_processing(
        self, api, dispatched, django_capture_on_commit_callbacks
    ):
        event = ticketed_event()
        tier = free_tier(event, total_quantity=4)
        owner = event.organization.owner

        with django_capture_on_commit_callbacks(execute=True):
            lower = api(owner).patch(tiers_url(event, tier), {"name": "Same size"})
        assert lower.status_code == 200
        assert dispatched == []

        with django_capture_on_commit_callbacks(execute=True):
            unlimited = api(owner).patch(tiers_url(event, tier), {"total_quantity": None})

        assert unlimited.status_code == 200
        assert unlimited.json()["total_quantity"] is None
        assert dispatched == [event.pk]

    def test_tier_with_tickets_cannot_be_deleted_even_when_all_are_cancelled(self, api, user):
        event = ticketed_event()
        tier = free_tier(event)
        [ticket] = buy(event, tier, user)
        owner = event.organization.owner
        assert (
            api(owner).post(f"/event-admin/{event.pk}/tickets/{ticket.pk}/cancel").status_code
            == 200
        )

        response = api(owner).delete(tiers_url(event, tier))

        assert response.status_code == 409
        assert response.json()["code"] == "tier_has_tickets"
        assert TicketTier.objects.filter(pk=tier.pk).exists()

    def test_unused_tier_is_deleted(self, api):
        event = ticketed_event()
        tier = free_tier(event)

        assert api(event.organization.owner).delete(tiers_url(event, tier)).status_code == 204

        assert not TicketTier.objects.filter(pk=tier.pk).exists()


# -- tickets ----------------------------------------------------------------------------------
def ticket_url(event: Event, ticket: Ticket, action: str) -> str:
    return f"/event-admin/{event.pk}/tickets/{ticket.pk}/{action}"


class TestTicketList:
    def test_lists_every_ticket_with_its_holder_and_filters_by_status(self, api, user):
        event = ticketed_event()
        buy(event, free_tier(event), user, 2)
        [pending] = buy(event, offline_tier(event), user)
        owner = event.organization.owner

        everything = api(owner).get(f"/event-admin/{event.pk}/tickets")
        only_pending = api(owner).get(f"/event-admin/{event.pk}/tickets", status="pending")

        assert everything.status_code == 200
        assert everything.json()["count"] == 3
        assert everything.json()["results"][0]["user"]["email"] == user.email
        assert [t["id"] for t in only_pending.json()["results"]] == [str(pending.pk)]

    def test_pages(self, api, user):
        event = ticketed_event()
        buy(event, free_tier(event), user, 3)

        page = api(event.organization.owner).get(
            f"/event-admin/{event.pk}/tickets", page=2, page_size=2
        )

        assert page.status_code == 200
        assert page.json()["count"] == 3
        assert len(page.json()["results"]) == 1

    def test_unknown_status_filter_is_422(self, api):
        event = ticketed_event()

        response = api(event.organization.owner).get(
            f"/event-admin/{event.pk}/tickets", status="lost"
        )

        assert response.status_code == 422


class TestConfirmPayment:
    def test_pending_ticket_becomes_active_and_paid(self, api, user):
        event = ticketed_event()
        [ticket] = buy(event, offline_tier(event), user)

        response = api(event.organization.owner).post(ticket_url(event, ticket, "confirm-payment"))

        assert response.status_code == 200
        assert response.json()["status"] == "active"
        assert response.json()["paid_at"]
        assert_counters_true(event)
        assert event.attendee_count == 1

    @pytest.mark.parametrize(
        ("status", "code"),
        [(Ticket.Status.ACTIVE, "not_pending"), (Ticket.Status.CANCELLED, "ticket_cancelled")],
    )
    def test_only_pending_tickets_are_confirmed(self, api, user, status, code):
        event = ticketed_event()
        [ticket] = buy(event, offline_tier(event), user)
        Ticket.objects.filter(pk=ticket.pk).update(status=status)

        response = api(event.organization.owner).post(ticket_url(event, ticket, "confirm-payment"))

        assert response.status_code == 409
        assert response.json()["code"] == code
        ticket.refresh_from_db()
        assert ticket.status == status


class TestCheckIn:
    def test_active_ticket_checks_in_inside_the_window(self, api, user):
        event = ticketed_event()
        [ticket] = buy(event, free_tier(event), user)

        with time_machine.travel(event.start - timedelta(minutes=30)):
            response = api(event.organization.owner).post(ticket_url(event, ticket, "check-in"))

        assert response.status_code == 200, response.json()
        assert response.json()["status"] == "checked_in"
        assert response.json()["checked_in_at"]
        assert_counters_true(event)

    @pytest.mark.parametrize(
        "offset",
        [timedelta(hours=-2), timedelta(days=1, minutes=1)],
        ids=["before-window", "after-window"],
    )
    def test_outside_the_window_is_400(self, api, user, offset):
        event = ticketed_event()
        [ticket] = buy(event, free_tier(event), user)

        with time_machine.travel(event.start + offset):
            response = api(event.organization.owner).post(ticket_url(event, ticket, "check-in"))

        assert response.status_code == 400
        assert response.json()["code"] == "outside_check_in_window"
        ticket.refresh_from_db()
        assert ticket.status == Ticket.Status.ACTIVE

    def test_pending_ticket_is_409_payment_pending(self, api, user):
        event = ticketed_event()
        [ticket] = buy(event, offline_tier(event), user)

        with time_machine.travel(event.start):
            response = api(event.organization.owner).post(ticket_url(event, ticket, "check-in"))

        assert response.status_code == 409
        assert response.json()["code"] == "payment_pending"

    def test_second_check_in_is_409(self, api, user):
        event = ticketed_event()
        [ticket] = buy(event, free_tier(event), user)
        owner = event.organization.owner

        with time_machine.travel(event.start):
            assert api(owner).post(ticket_url(event, ticket, "check-in")).status_code == 200
            again = api(owner).post(ticket_url(event, ticket, "check-in"))

        assert again.status_code == 409
        assert again.json()["code"] == "already_checked_in"

    def test_check_in_needs_only_check_in_attendees(self, api, user):
        event = ticketed_event()
        [ticket] = buy(event, free_tier(event), user)
        door = make_staff(event.organization, manage_tickets=False, check_in_attendees=True)

        with time_machine.travel(event.start):
            response = api(door).post(ticket_url(event, ticket, "check-in"))

        assert response.status_code == 200


# -- box office -------------------------------------------------------------------------------
def sell(api: Any, event: Event, buyer: User, tier: TicketTier, **extra: Any) -> Any:
    body = {"user_id": str(buyer.pk), "tier_id": str(tier.pk), **extra}
    return api(event.organization.owner).post(f"/event-admin/{event.pk}/box-office/sell", body)


class TestBoxOffice:
    def test_sells_an_active_ticket_even_for_an_offline_tier(self, api, user):
        event = ticketed_event()
        tier = offline_tier(event)

        response = sell(api, event, user, tier, holder_name="Door Guest")

        assert response.status_code == 201, response.json()
        ticket = Ticket.objects.get(pk=response.json()["id"])
        assert (ticket.user, ticket.status, ticket.holder_name) == (
            user,
            Ticket.Status.ACTIVE,
            "Door Guest",
        )
        assert ticket.paid_at is not None
        assert_counters_true(event)

    @pytest.mark.parametrize(
        "event_fields",
        [{"status": Event.Status.CLOSED}, {"event_type": Event.EventType.PRIVATE}],
        ids=["event-closed", "invitation-needed"],
    )
    def test_skips_the_eligibility_gates(self, api, user, event_fields):
        event = ticketed_event(**event_fields)
        tier = free_tier(event)

        assert sell(api, event, user, tier).status_code == 201

    def test_skips_the_sale_window(self, api, user):
        event = ticketed_event()
        tier = free_tier(event, sales_end_at=timezone.now() - timedelta(hours=1))

        assert sell(api, event, user, tier).status_code == 201

    def test_never_skips_the_capacity_check(self, api, user):
        event = ticketed_event(max_attendees=1)
        tier = free_tier(event)
        fill_with_tickets(event, tier, 1)

        response = sell(api, event, user, tier)

        assert response.status_code == 409
        assert response.json()["code"] == "event_is_full"
        assert not Ticket.objects.filter(user=user).exists()
        assert_counters_true(event)

    def test_never_skips_the_tier_quantity(self, api, user):
        event = ticketed_event()
        tier = free_tier(event, total_quantity=1)
        fill_with_tickets(event, tier, 1)

        response = sell(api, event, user, tier)

        assert response.status_code == 409
        assert response.json()["code"] == "sold_out"

    def test_takes_the_buyer_off_the_waitlist(self, api, user):
        event = ticketed_event(waitlist_open=True)
        tier = free_tier(event)
        EventWaitList.objects.create(event=event, user=user)

        assert sell(api, event, user, tier).status_code == 201

        assert not EventWaitList.objects.filter(event=event, user=user).exists()

    def test_unknown_buyer_is_404(self, api):
        event = ticketed_event()
        tier = free_tier(event)
        ghost = User(pk="00000000-0000-0000-0000-000000000001")

        response = sell(api, event, ghost, tier)

        assert response.status_code == 404
        assert response.json()["code"] == "unknown_user"
        assert not Ticket.objects.exists()

    def test_tier_of_another_event_is_404(self, api, user):
        event = ticketed_event()
        foreign = free_tier(ticketed_event())

        response = sell(api, event, user, foreign)

        assert response.status_code == 404
        assert response.json()["code"] == "unknown_tier"
        assert not Ticket.objects.exists()


class TestDefaultTier:
    def test_ticketed_event_without_tiers_gets_a_free_general_admission_tier(self, api, user):
        event = ticketed_event()

        tier = ticket_tier_service.ensure_default_tier(event)

        assert tier is not None
        assert (tier.name, tier.price, tier.payment_method, tier.total_quantity) == (
            "General admission",
            Decimal("0"),
            TicketTier.PaymentMethod.FREE,
            None,
        )
        body = {"items": [{"tier_id": str(tier.pk), "count": 1}]}
        assert api(user).post(f"/events/{event.pk}/checkout", body).status_code == 201

    def test_is_idempotent_and_leaves_existing_tiers_alone(self):
        event = ticketed_event()
        own = free_tier(event, name="Early bird")

        assert ticket_tier_service.ensure_default_tier(event) is None
        assert list(TicketTier.objects.filter(event=event)) == [own]

    def test_rsvp_events_get_no_tier(self):
        event = ticketed_event(requires_ticket=False)

        assert ticket_tier_service.ensure_default_tier(event) is None
        assert not TicketTier.objects.filter(event=event).exists()
