"""docs/spec/seed-tables.md "Trigger sites", the event: every change to the event that may allow a
batch (more attendees or venue capacity, uncancelling or opening it, a new ticket tier)
sends `events.process_waitlist_for_event` with the event's id after its commit; lowering
the capacity or closing the event sends nothing. The settings-PATCH rows are tested with
the waitlist settings themselves. `dispatched` (conftest.py) records the sends instead of
running them.
"""

import pytest

from events.models import Event, Venue
from events.waitlist.tests.waitlist_builders import active_ticketed_event
from events.waitlist.tests.waitlist_triggers_support import _at_t0, committed, full_rsvp_event

__all__ = ["_at_t0", "committed"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


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
