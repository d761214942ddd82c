"""The seed's three lifecycle examples, as corrected in docs/spec/seed-tables.md, step by step.

Time is moved with time-machine; every step goes through the real services and, where a
user or an organiser acts, through the HTTP API. Celery runs eagerly, so each commit's
processing pass runs inside `django_capture_on_commit_callbacks(execute=True)`.
"""

from datetime import timedelta

import pytest
import time_machine

from accounts.tests.factories import make_user
from events import tasks
from events.core.tests.factories import fill_with_rsvps
from events.models import EventRSVP, EventWaitList, Ticket
from events.ticketing.tests.ticket_helpers import cart
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.tests.waitlist_builders import (
    START,
    T0,
    WINDOW,
    Status,
    active_event,
    active_ticketed_event,
    ids,
    offer_of,
    offered_ids,
    offers_of,
    passes,
    queue_in_order,
    queued_ids,
    reload,
    statuses,
)
from notifications.models import Notification, NotificationType

__all__ = ["passes"]  # the fixture, imported for pytest

pytestmark = pytest.mark.django_db

SPOT = NotificationType.WAITLIST_SPOT_AVAILABLE


def eligibility_of(api, user, event) -> dict:
    response = api(user).get(f"/events/{event.pk}/my-status")
    assert response.status_code == 200
    return response.json()["eligibility"]


def told(user, notification_type=SPOT) -> list[Notification]:
    return list(Notification.objects.filter(user=user, notification_type=notification_type))


class TestBatchedFifoPartialClaim:
    """Example 1: ticketed, capacity 10, 10 tickets, window 2h, batch 3, queue A–E."""

    def test_one_cancellation_offers_one_seat_to_the_head_who_claims_it_by_checkout(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        with time_machine.travel(T0, tick=False):
            event, tier, holders = active_ticketed_event(10, sold=10, waitlist_batch_size=3)
            a, b, c, d, e = queue_in_order(event, 5)
            ticket = Ticket.objects.get(event=event, user=holders[0])

            # 1–2. A registered attendee cancels their ticket.
            with django_capture_on_commit_callbacks(execute=True):
                response = api(holders[0]).post(f"/events/{event.pk}/tickets/{ticket.pk}/cancel")
            assert response.status_code == 200

            # 3–6. One pass: available = 10 − 9 − 0 = 1, so min(3, 1) = 1 offer, to A.
            assert statuses(passes) == ["ok"]
            assert passes[0].offers_created == 1
            [offer] = offers_of(event)
            assert offer.user_id == a.pk
            assert offer.status == Status.PENDING
            assert offer.expires_at == T0 + WINDOW
            assert offer.is_cutoff_batch is False
            assert reload(event).attendee_count == 9

            # 7. A is told, with the deadline.
            [notice] = told(a)
            assert notice.context["offer_id"] == str(offer.pk)
            assert notice.context["is_cutoff_batch"] is False
            offer.refresh_from_db()
            assert offer.notified_at == T0
            assert all(not told(other) for other in (b, c, d, e))

            # 8. A new visitor sees the seat reserved; B waits for the next batch.
            visitor = eligibility_of(api, make_user(), event)
            assert visitor["reason_code"] == "spots_reserved_for_waitlist"
            assert visitor["next_step"] == "join_waitlist"
            assert visitor["pending_offers_count"] == 1
            assert visitor["allowed"] is False
            waiting = eligibility_of(api, b, event)
            assert waiting["reason_code"] == "on_waitlist_waiting_for_batch"
            assert waiting["next_step"] == "wait_for_open_spot"
            assert waiting["waitlist_position"] == 1
            holder = eligibility_of(api, a, event)
            assert holder["allowed"] is True
            assert holder["active_offer_expires_at"] is not None

        # 9–11. A checks out one ticket within the window: the offer is claimed.
        with time_machine.travel(T0 + timedelta(minutes=30), tick=False):
            with django_capture_on_commit_callbacks(execute=True):
                response = api(a).post(f"/events/{event.pk}/checkout", cart((tier, 1)))

            assert response.status_code == 201
            offer.refresh_from_db()
            assert offer.status == Status.CLAIMED
            assert offer.claimed_at == T0 + timedelta(minutes=30)
            assert a.pk not in queued_ids(event)
            assert reload(event).attendee_count == 10

            # 12. The defensive nudge finds no free seat.
            assert statuses(passes) == ["ok", "no_spots"]
            assert offers_of(event) == [offer]
            assert eligibility_of(api, b, event)["waitlist_position"] == 1


class TestCutoffWithContention:
    """Example 2: RSVP event, capacity 10, full, queue [B, C, D], cutoff = start − 1h."""

    def test_after_the_cutoff_all_are_offered_and_the_first_two_win(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        cutoff = START - timedelta(hours=1)
        with time_machine.travel(T0, tick=False):
            event = active_event(10, waitlist_batch_size=3, waitlist_cutoff_date=cutoff)
            attendees = fill_with_rsvps(event, 10)
            b, c, d = queue_in_order(event, 3)

        after_cutoff = cutoff + timedelta(minutes=10)
        with time_machine.travel(after_cutoff, tick=False):
            # Two attendees change to NO; the first pass issues the one cutoff batch.
            with django_capture_on_commit_callbacks(execute=True):
                assert api(attendees[0]).post(f"/events/{event.pk}/rsvp/no").status_code == 200
            assert statuses(passes) == ["ok"]
            assert passes[0].is_cutoff_batch is True
            batch = offers_of(event)
            assert {offer.user_id for offer in batch} == ids([b, c, d])
            assert all(offer.is_cutoff_batch for offer in batch)
            assert all(offer.expires_at == START for offer in batch)
            assert len({offer.batch_id for offer in batch}) == 1
            assert all(told(person)[0].context["is_cutoff_batch"] for person in (b, c, d))

            # The second NO: a second pass answers cutoff_already_processed.
            with django_capture_on_commit_callbacks(execute=True):
                assert api(attendees[1]).post(f"/events/{event.pk}/rsvp/no").status_code == 200
            assert statuses(passes) == ["ok", "cutoff_already_processed"]
            assert len(offers_of(event)) == 3
            assert reload(event).attendee_count == 8

        with time_machine.travel(after_cutoff + timedelta(minutes=5), tick=False):
            # B and C both win: 8 → 9 → 10.
            for winner, count in ((b, 9), (c, 10)):
                with django_capture_on_commit_callbacks(execute=True):
                    response = api(winner).post(f"/events/{event.pk}/rsvp/yes")
                assert response.status_code == 200
                assert reload(event).attendee_count == count
                assert offer_of(event, winner).status == Status.CLAIMED

            # D arrives too late: the ordinary full answer, and the offer stays as it was.
            response = api(d).post(f"/events/{event.pk}/rsvp/yes")
            assert response.status_code == 409
            assert response.json()["code"] == "event_is_full"
            assert offer_of(event, d).status == Status.PENDING
            assert not EventRSVP.objects.filter(event=event, user=d).exists()
            assert reload(event).attendee_count == 10

        # D's offer lapses at the start; nothing more is offered for a started event, and
        # D is not told "you are back in the queue": no offer can follow any more.
        with time_machine.travel(START, tick=False):
            with django_capture_on_commit_callbacks(execute=True):
                swept = tasks.expire_waitlist_offers_task()
            assert swept == {"expired": 1, "event_ids": [str(event.pk)]}
            assert offer_of(event, d).status == Status.EXPIRED
            assert statuses(passes)[-1] == "disabled"
            assert told(d, NotificationType.WAITLIST_OFFER_EXPIRED) == []


class TestSoftLockRecovery:
    """Example 3: RSVP event, capacity 10 → 13 with 10 attendees, batch 3, queue of six."""

    def test_the_sweeper_hands_abandoned_seats_to_the_next_two_in_line(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        with time_machine.travel(T0, tick=False):
            event = active_event(10, attendees=10, waitlist_batch_size=3)
            queue = queue_in_order(event, 6)
            owner = event.organization.owner

            # The organiser raises the capacity: one batch of three, 1st–3rd.
            with django_capture_on_commit_callbacks(execute=True):
                response = api(owner).patch(f"/event-admin/{event.pk}", {"max_attendees": 13})
            assert response.status_code == 200
            assert statuses(passes) == ["ok"]
            assert offered_ids(event) == ids(queue[:3])

        # The 1st claims; the defensive nudge sees 11 + 2 held = 13: nothing to do.
        with time_machine.travel(T0 + timedelta(minutes=20), tick=False):
            with django_capture_on_commit_callbacks(execute=True):
                assert api(queue[0]).post(f"/events/{event.pk}/rsvp/yes").status_code == 200
            assert statuses(passes) == ["ok", "no_spots"]
            assert offer_of(event, queue[0]).status == Status.CLAIMED
            assert reload(event).attendee_count == 11

        # Two hours later the sweeper expires the other two; ONE pass offers both seats
        # to the 4th and 5th: the abandoners rotate behind everyone who never let one lapse.
        with time_machine.travel(T0 + WINDOW, tick=False):
            with django_capture_on_commit_callbacks(execute=True):
                swept = tasks.expire_waitlist_offers_task()

            assert swept == {"expired": 2, "event_ids": [str(event.pk)]}
            assert [offer_of(event, person).status for person in queue[1:3]] == [
                Status.EXPIRED,
                Status.EXPIRED,
            ]
            assert statuses(passes) == ["ok", "no_spots", "ok"]
            assert passes[-1].offers_created == 2
            assert offered_ids(event) == ids(queue[3:5])
            assert all(
                told(person, NotificationType.WAITLIST_OFFER_EXPIRED) for person in queue[1:3]
            )

            now = T0 + WINDOW
            positions = [
                waitlist_selectors.queue_position(event.pk, person.pk, now) for person in queue[1:]
            ]
            assert positions == [2, 3, None, None, 1]
            assert EventWaitList.objects.filter(event=event).count() == 5
