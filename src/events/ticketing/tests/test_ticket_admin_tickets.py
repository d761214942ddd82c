"""/event-admin/{event_id}/tickets: listing tickets, confirming an offline payment, and
checking a ticket in.
"""

from datetime import timedelta

import pytest
import time_machine

from events.core.tests.factories import make_staff
from events.models import Event, Ticket
from events.ticketing.tests.ticket_helpers import (
    assert_counters_true,
    buy,
    free_tier,
    offline_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db


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
