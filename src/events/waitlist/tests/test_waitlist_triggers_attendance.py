"""docs/spec/seed-tables.md "Trigger sites", tickets and RSVPs: every path that frees a seat by
cancelling a ticket or changing an RSVP sends `events.process_waitlist_for_event` with the
event's id after its commit. Payment-provider callbacks and online checkout abandonment
are seams of the out-of-scope online payments; their offline counterparts are here.
`dispatched` (conftest.py) records the sends instead of running them.
"""

from datetime import timedelta

import pytest
import time_machine

from accounts.tests.factories import make_user
from events import tasks
from events.models import EventRSVP, Ticket
from events.ticketing.services.batch_tickets import BatchTicketService, CartItem
from events.ticketing.tests.ticket_helpers import offline_tier
from events.waitlist.tests.waitlist_builders import T0, active_ticketed_event, queue_in_order
from events.waitlist.tests.waitlist_triggers_support import _at_t0, committed, full_rsvp_event

__all__ = ["_at_t0", "committed"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


def full_ticketed_event():
    event, _tier, holders = active_ticketed_event(3, sold=3)
    queue_in_order(event, 1)
    return event, Ticket.objects.get(event=event, user=holders[0])


# -- tickets ---------------------------------------------------------------------------------
class TestTicketsFreeingSeats:
    def test_user_cancels_own_ticket(self, api, dispatched, committed):
        event, ticket = full_ticketed_event()

        response = committed(
            lambda: api(ticket.user).post(f"/events/{event.pk}/tickets/{ticket.pk}/cancel")
        )

        assert response.status_code == 200
        assert dispatched == [event.pk]

    @pytest.mark.parametrize("action", ["refund", "cancel"])
    def test_admin_refunds_or_cancels_a_ticket(self, api, dispatched, committed, action):
        event, ticket = full_ticketed_event()
        owner = event.organization.owner

        response = committed(
            lambda: api(owner).post(f"/event-admin/{event.pk}/tickets/{ticket.pk}/{action}")
        )

        assert response.status_code == 200
        assert dispatched == [event.pk]

    def test_unpaid_pending_ticket_expires(self, dispatched, committed):
        event, _, _ = active_ticketed_event(3)
        tier = offline_tier(event)
        BatchTicketService(event, make_user()).create_batch([CartItem(tier.pk, 1)])

        with time_machine.travel(T0 + timedelta(hours=tier.payment_due_hours + 1), tick=False):
            result = committed(tasks.expire_unpaid_tickets)

        assert result["cancelled_tickets"] == 1
        assert dispatched == [event.pk]

    def test_a_refused_cancellation_enqueues_nothing(self, api, dispatched, committed):
        event, ticket = full_ticketed_event()
        stranger = make_user()

        response = committed(
            lambda: api(stranger).post(f"/events/{event.pk}/tickets/{ticket.pk}/cancel")
        )

        assert response.status_code == 404
        assert dispatched == []


# -- RSVPs -----------------------------------------------------------------------------------
class TestRsvpsFreeingSeats:
    @pytest.mark.parametrize("answer", ["no", "maybe"])
    def test_user_changes_yes_to_something_else(self, api, dispatched, committed, answer):
        event, attendees = full_rsvp_event()

        response = committed(lambda: api(attendees[0]).post(f"/events/{event.pk}/rsvp/{answer}"))

        assert response.status_code == 200
        assert dispatched == [event.pk]

    def test_an_answer_that_held_no_seat_enqueues_nothing(self, api, dispatched, committed):
        event, _ = full_rsvp_event()
        undecided = make_user()
        EventRSVP.objects.create(event=event, user=undecided, status=EventRSVP.Status.MAYBE)

        response = committed(lambda: api(undecided).post(f"/events/{event.pk}/rsvp/no"))

        assert response.status_code == 200
        assert dispatched == []

    def test_admin_sets_an_rsvp_from_yes_to_no(self, api, dispatched, committed):
        event, attendees = full_rsvp_event()

        response = committed(
            lambda: api(event.organization.owner).post(
                f"/event-admin/{event.pk}/rsvps",
                {"user_id": str(attendees[0].pk), "status": "no"},
            )
        )

        assert response.status_code == 200
        assert dispatched == [event.pk]

    def test_admin_updates_an_rsvp_from_yes_to_maybe(self, api, dispatched, committed):
        event, attendees = full_rsvp_event()
        rsvp = EventRSVP.objects.get(event=event, user=attendees[0])

        response = committed(
            lambda: api(event.organization.owner).patch(
                f"/event-admin/{event.pk}/rsvps/{rsvp.pk}", {"status": "maybe"}
            )
        )

        assert response.status_code == 200
        assert dispatched == [event.pk]

    def test_admin_deletes_a_yes_rsvp(self, api, dispatched, committed):
        event, attendees = full_rsvp_event()
        rsvp = EventRSVP.objects.get(event=event, user=attendees[0])

        response = committed(
            lambda: api(event.organization.owner).delete(f"/event-admin/{event.pk}/rsvps/{rsvp.pk}")
        )

        assert response.status_code == 204
        assert dispatched == [event.pk]
