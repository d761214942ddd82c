"""seed-tables.md "Trigger sites": every path of the platform that frees a seat (or may
otherwise allow a batch) sends `events.process_waitlist_for_event` with the event's id after its commit.

`dispatched` (src/events/tests/conftest.py) records those sends instead of running them, so
these tests see the enqueue and nothing else (no processing pass runs). The
settings-PATCH rows are tested with the waitlist settings themselves. Payment-provider callbacks and online checkout abandonment
are seams of the out-of-scope online payments; their offline counterparts are here.
"""

from datetime import timedelta

import pytest
import time_machine

from accounts.tests.factories import make_user
from events import tasks
from events.models import Event, EventRSVP, EventWaitList, Ticket, Venue
from events.service import waitlist_service
from events.service.batch_ticket_service import BatchTicketService, CartItem
from events.tests.factories import fill_with_rsvps
from events.tests.ticket_helpers import cart, offline_tier
from events.tests.waitlist_builders import (
    T0,
    WINDOW,
    active_event,
    active_ticketed_event,
    give_offer,
    queue_in_order,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run a step, then its on-commit callbacks; returns the step's result."""

    def run(step):
        with django_capture_on_commit_callbacks(execute=True):
            return step()

    return run


def full_ticketed_event():
    event, _tier, holders = active_ticketed_event(3, sold=3)
    queue_in_order(event, 1)
    return event, Ticket.objects.get(event=event, user=holders[0])


def full_rsvp_event(**fields):
    event = active_event(3, **fields)
    attendees = fill_with_rsvps(event, 3)
    queue_in_order(event, 1)
    return event, attendees


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


# -- the event -------------------------------------------------------------------------------
class TestEventChanges:
    def test_max_attendees_increased(self, api, dispatched, committed):
        event, _ = full_rsvp_event()

        response = committed(
            lambda: api(event.organization.owner).patch(
                f"/event-admin/{event.pk}", {"max_attendees": 5}
            )
        )

        assert response.status_code == 200
        assert dispatched == [event.pk]

    def test_max_attendees_decreased_enqueues_nothing(self, api, dispatched, committed):
        event, _ = full_rsvp_event()
        Event.objects.filter(pk=event.pk).update(max_attendees=5)

        response = committed(
            lambda: api(event.organization.owner).patch(
                f"/event-admin/{event.pk}", {"max_attendees": 4}
            )
        )

        assert response.status_code == 200
        assert dispatched == []

    def test_venue_capacity_increased(self, api, dispatched, committed):
        event, _ = full_rsvp_event()
        organization = event.organization
        venue = Venue.objects.create(organization=organization, name="Hall", capacity=3)
        Event.objects.filter(pk=event.pk).update(venue=venue, max_attendees=0)

        response = committed(
            lambda: api(organization.owner).patch(
                f"/organization-admin/{organization.slug}/venues/{venue.pk}", {"capacity": 10}
            )
        )

        assert response.status_code == 200
        assert dispatched == [event.pk]

    @pytest.mark.parametrize(
        ("before", "after"),
        [
            (Event.Status.CANCELLED, "open"),
            (Event.Status.CANCELLED, "draft"),
            (Event.Status.CLOSED, "open"),
            (Event.Status.DRAFT, "open"),
        ],
    )
    def test_event_uncancelled_or_opened(self, api, dispatched, committed, before, after):
        """Un-cancelling (seed-tables) or (re)opening: offers only go to OPEN events, so
        a queue that waited through a closed or draft spell gets its pass now."""
        event, _ = full_rsvp_event()
        Event.objects.filter(pk=event.pk).update(status=before)

        response = committed(
            lambda: api(event.organization.owner).post(f"/event-admin/{event.pk}/status/{after}")
        )

        assert response.status_code == 200
        assert dispatched == [event.pk]

    def test_a_new_ticket_tier(self, api, dispatched, committed):
        """Offers are bounded by what the tiers can sell: a new tier may let the queue move."""
        event, _, _ = active_ticketed_event(3, sold=3)

        response = committed(
            lambda: api(event.organization.owner).post(
                f"/event-admin/{event.pk}/ticket-tiers", {"name": "Late release"}
            )
        )

        assert response.status_code == 201, response.json()
        assert dispatched == [event.pk]

    def test_closing_the_event_enqueues_nothing(self, api, dispatched, committed):
        event, _ = full_rsvp_event()

        response = committed(
            lambda: api(event.organization.owner).post(f"/event-admin/{event.pk}/status/closed")
        )

        assert response.status_code == 200
        assert dispatched == []


# -- the queue and the offers ------------------------------------------------------------------
class TestQueueAndOffers:
    def test_waitlist_join_self_heals(self, api, dispatched, committed):
        event, _ = full_rsvp_event()

        response = committed(lambda: api(make_user()).post(f"/events/{event.pk}/waitlist/join"))

        assert response.status_code == 201
        assert dispatched == [event.pk]

    def test_joining_again_enqueues_nothing(self, api, dispatched, committed):
        event = active_event(3, attendees=3)
        [member] = queue_in_order(event, 1)

        response = committed(lambda: api(member).post(f"/events/{event.pk}/waitlist/join"))

        assert response.status_code == 200
        assert dispatched == []

    def test_leave_while_holding_an_offer(self, api, dispatched, committed):
        event = active_event(3, attendees=2)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder)

        response = committed(lambda: api(holder).delete(f"/events/{event.pk}/waitlist/leave"))

        assert response.status_code == 204
        assert dispatched == [event.pk]

    def test_leave_without_an_offer_enqueues_nothing(self, api, dispatched, committed):
        event = active_event(3, attendees=3)
        [member] = queue_in_order(event, 1)

        response = committed(lambda: api(member).delete(f"/events/{event.pk}/waitlist/leave"))

        assert response.status_code == 204
        assert dispatched == []

    def test_offer_claim_nudges(self, api, dispatched, committed):
        event = active_event(3, attendees=2)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder)

        response = committed(lambda: api(holder).post(f"/events/{event.pk}/rsvp/yes"))

        assert response.status_code == 200
        assert dispatched == [event.pk]

    def test_registering_without_an_offer_nudges_nothing(self, api, dispatched, committed):
        event = active_event(3, attendees=2)

        response = committed(lambda: api(make_user()).post(f"/events/{event.pk}/rsvp/yes"))

        assert response.status_code == 200
        assert dispatched == []

    def test_checkout_claim_nudges(self, api, dispatched, committed):
        event, tier, _ = active_ticketed_event(3, sold=2)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder)

        response = committed(
            lambda: api(holder).post(f"/events/{event.pk}/checkout", cart((tier, 1)))
        )

        assert response.status_code == 201
        assert dispatched == [event.pk]

    def test_sweeper_enqueues_once_per_affected_event(self, dispatched, committed):
        first, second, untouched = (active_event(5, attendees=3) for _ in range(3))
        for event in (first, first, second):
            give_offer(event, make_user())
        give_offer(untouched, make_user(), expires_at=T0 + WINDOW * 2)

        with time_machine.travel(T0 + WINDOW, tick=False):
            swept = committed(tasks.expire_waitlist_offers_task)

        assert swept["expired"] == 3
        assert sorted(dispatched) == sorted([first.pk, second.pk])

    def test_hourly_safety_net(self, dispatched, committed):
        active = active_event(5, attendees=5)
        legacy = active_event(5, waitlist_time_window=None)
        closed = active_event(5, waitlist_open=False)

        nudged = committed(tasks.nudge_open_waitlists_task)

        assert str(active.pk) in nudged
        assert active.pk in dispatched
        assert legacy.pk not in dispatched
        assert closed.pk not in dispatched

    def test_admin_revokes_a_pending_offer(self, api, dispatched, committed):
        event = active_event(3, attendees=2)
        [holder] = queue_in_order(event, 1)
        offer = give_offer(event, holder)

        response = committed(
            lambda: api(event.organization.owner).post(
                f"/event-admin/{event.pk}/waitlist-offers/{offer.pk}/revoke"
            )
        )

        assert response.status_code == 200
        assert dispatched == [event.pk]

    def test_queue_entry_deleted_with_a_pending_offer(self, dispatched, committed):
        event = active_event(3, attendees=2)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder)

        committed(lambda: EventWaitList.objects.filter(event=event, user=holder).delete())

        assert dispatched == [event.pk]

    def test_queue_entry_deleted_by_staff(self, api, dispatched, committed):
        event = active_event(3, attendees=2)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder)
        entry = EventWaitList.objects.get(event=event, user=holder)

        response = committed(
            lambda: api(event.organization.owner).delete(
                f"/event-admin/{event.pk}/waitlist/{entry.pk}"
            )
        )

        assert response.status_code == 204
        assert dispatched == [event.pk]

    def test_queue_entry_deleted_without_an_offer_enqueues_nothing(self, dispatched, committed):
        event = active_event(3, attendees=3)
        [member] = queue_in_order(event, 1)

        committed(lambda: EventWaitList.objects.filter(event=event, user=member).delete())

        assert dispatched == []

    def test_enqueue_dispatches_only_after_the_commit(self, dispatched, committed):
        event = active_event(3)

        def inside():
            waitlist_service.enqueue_waitlist_processing(event.pk)
            assert dispatched == []

        committed(inside)

        assert dispatched == [event.pk]
