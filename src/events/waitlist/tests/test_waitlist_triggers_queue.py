"""docs/spec/seed-tables.md "Trigger sites", the queue and the offers: every path that moves the queue
or ends an offer sends `events.process_waitlist_for_event` with the event's id after its
commit. `dispatched` (conftest.py) records the sends instead of running them.
"""

import pytest
import time_machine

from accounts.tests.factories import make_user
from events import tasks
from events.models import EventWaitList
from events.ticketing.tests.ticket_helpers import cart
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import (
    T0,
    WINDOW,
    active_event,
    active_ticketed_event,
    give_offer,
    queue_in_order,
)
from events.waitlist.tests.waitlist_triggers_support import _at_t0, committed, full_rsvp_event

__all__ = ["_at_t0", "committed"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


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
