"""seed-tables.md "Configuration matrix" and "What the user sees", row by row.

Each matrix row is driven through the path that frees seats in real life (an RSVP
change or a capacity PATCH over HTTP) or, where the row is about selection only,
through one processing pass. Each "what the user sees" row is read from
GET /events/{id}/my-status.
"""

import re
import uuid
from datetime import datetime, timedelta

import pytest
import time_machine
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from events import tasks
from events.models import Event, EventWaitList, Ticket, TicketTier, WaitlistOffer
from events.service import waitlist_service
from events.tests.factories import fill_with_rsvps, make_tier
from events.tests.ticket_helpers import cart, offline_tier
from events.tests.waitlist_builders import (
    START,
    T0,
    WINDOW,
    Reason,
    Status,
    active_event,
    active_ticketed_event,
    give_offer,
    ids,
    offered_ids,
    offers_of,
    passes,
    queue_in_order,
    reload,
    statuses,
)
from notifications.models import Notification, NotificationType

__all__ = ["passes"]  # the fixture, imported for pytest

pytestmark = pytest.mark.django_db

#: RAND() on SQLite (Django's function), RANDOM() on PostgreSQL.
RANDOM_SQL = re.compile(r"\bRAND(?:OM)?\(\)", re.IGNORECASE)


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


def raise_capacity(api, event, to: int, capture) -> None:
    """The organiser raises max_attendees over HTTP; the pass runs on commit."""
    with capture(execute=True):
        response = api(event.organization.owner).patch(
            f"/event-admin/{event.pk}", {"max_attendees": to}
        )
    assert response.status_code == 200, response.json()


def rotate(event, *people, at: datetime | None = None) -> None:
    """Mark members as having let an offer lapse (what the sweeper records)."""
    EventWaitList.objects.filter(event=event, user__in=people).update(
        last_offer_expired_at=at or T0 - timedelta(hours=1)
    )


def spot_notices() -> int:
    return Notification.objects.filter(
        notification_type=NotificationType.WAITLIST_SPOT_AVAILABLE
    ).count()


# -- the configuration matrix ---------------------------------------------------------------
class TestClosedWaitlist:
    """waitlist_open=False, anything else: joining answers 400 `waitlist_closed`."""

    @pytest.mark.parametrize("window", [None, WINDOW])
    @pytest.mark.parametrize("batch_size", [0, 5])
    @pytest.mark.parametrize("cutoff", [None, START - timedelta(hours=6)])
    def test_joining_is_refused(self, api, window, batch_size, cutoff):
        event = active_event(
            2,
            attendees=2,
            waitlist_open=False,
            waitlist_time_window=window,
            waitlist_batch_size=batch_size,
            waitlist_cutoff_date=cutoff,
        )
        joiner = make_user()

        response = api(joiner).post(f"/events/{event.pk}/waitlist/join")

        assert response.status_code == 400
        assert response.json()["code"] == "waitlist_closed"
        assert not EventWaitList.objects.filter(event=event).exists()

    def test_no_offers_go_out_for_a_closed_queue(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(2, attendees=2, waitlist_open=False)
        queue_in_order(event, 2)

        raise_capacity(api, event, 4, django_capture_on_commit_callbacks)

        assert statuses(passes) == ["disabled"]
        assert offers_of(event) == []


class TestLegacyPassiveWaitlist:
    """waitlist_open=True, window NULL: the queue exists, nothing is ever offered."""

    def test_a_freed_seat_issues_no_offer_and_no_notification(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(2, waitlist_time_window=None, waitlist_batch_size=5)
        attendees = fill_with_rsvps(event, 2)
        queue_in_order(event, 3)

        with django_capture_on_commit_callbacks(execute=True):
            assert api(attendees[0]).post(f"/events/{event.pk}/rsvp/no").status_code == 200

        assert statuses(passes) == ["disabled"]
        assert offers_of(event) == []
        assert spot_notices() == 0

    def test_the_hourly_nudge_leaves_legacy_events_alone(self):
        event = active_event(2, attendees=1, waitlist_time_window=None)
        queue_in_order(event, 1)

        assert event.pk not in waitlist_service.nudge_open_waitlists()


class TestOpenMode:
    """batch size 0: every eligible member at once, capped at the available seats."""

    def test_as_many_offers_as_seats_freed_in_fifo_order(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(10, attendees=10, waitlist_batch_size=0)
        queue = queue_in_order(event, 5)

        raise_capacity(api, event, 13, django_capture_on_commit_callbacks)

        assert statuses(passes) == ["ok"]
        assert offered_ids(event) == ids(queue[:3])
        assert all(offer.expires_at == T0 + WINDOW for offer in offers_of(event))

    def test_everyone_is_offered_when_there_are_more_seats_than_members(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(10, attendees=10, waitlist_batch_size=0)
        queue = queue_in_order(event, 5)

        raise_capacity(api, event, 20, django_capture_on_commit_callbacks)

        assert offered_ids(event) == ids(queue)
        assert spot_notices() == 5


class TestBatchedFifo:
    """batch size 5: the first 5 in the queue get a 2-hour offer per batch."""

    def test_a_batch_is_the_fifo_head_of_five(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(10, attendees=10, waitlist_batch_size=5)
        queue = queue_in_order(event, 7)

        raise_capacity(api, event, 20, django_capture_on_commit_callbacks)

        assert passes[0].offers_created == 5
        batch = offers_of(event)
        assert {offer.user_id for offer in batch} == ids(queue[:5])
        assert {offer.expires_at for offer in batch} == {T0 + WINDOW}
        assert len({offer.batch_id for offer in batch}) == 1
        assert not any(offer.is_cutoff_batch for offer in batch)

    def test_each_offer_of_a_batch_is_a_fresh_pending_row_of_its_own(self):
        """The database writes the batch (INSERT ... SELECT): every column as a new offer's."""
        event = active_event(10, attendees=5, waitlist_batch_size=5)
        queue_in_order(event, 5)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        batch = offers_of(event)
        assert len(batch) == result.offers_created == 5
        keys = [offer.pk for offer in batch]
        assert len(set(keys)) == 5
        assert all(key.version == 4 and key.variant == uuid.RFC_4122 for key in keys)
        assert {offer.batch_id for offer in batch} == {result.batch_id}
        assert {(o.status, o.revoked_reason, o.notified_at, o.claimed_at) for o in batch} == {
            (Status.PENDING, "", None, None)
        }
        assert {(o.created_at, o.updated_at) for o in batch} == {(T0, T0)}

    def test_a_batch_is_capped_at_the_seats_available(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(10, attendees=10, waitlist_batch_size=5)
        queue = queue_in_order(event, 7)

        raise_capacity(api, event, 12, django_capture_on_commit_callbacks)

        assert offered_ids(event) == ids(queue[:2])


class TestBatchedFifoWithCutoff:
    """batch 5, cutoff start − 6h: batches before it, one all-hands batch after it."""

    def test_before_the_cutoff_batches_are_sized(self):
        event = active_event(
            10, attendees=5, waitlist_batch_size=5, waitlist_cutoff_date=START - timedelta(hours=6)
        )
        queue = queue_in_order(event, 7)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert (result.status, result.is_cutoff_batch) == ("ok", False)
        assert offered_ids(event) == ids(queue[:5])

    @pytest.mark.parametrize("lottery", [False, True])
    def test_after_the_cutoff_one_all_hands_batch_expires_at_the_start(self, lottery):
        cutoff = START - timedelta(hours=6)
        event = active_event(
            10,
            attendees=9,
            waitlist_batch_size=5,
            waitlist_cutoff_date=cutoff,
            waitlist_lottery_mode=lottery,
        )
        queue = queue_in_order(event, 7)

        with time_machine.travel(cutoff, tick=False):
            first = waitlist_service.process_waitlist_for_event(event.pk)
            second = waitlist_service.process_waitlist_for_event(event.pk)

        assert (first.status, first.is_cutoff_batch, first.offers_created) == ("ok", True, 7)
        assert second.status == "cutoff_already_processed"
        batch = offers_of(event)
        assert {offer.user_id for offer in batch} == ids(queue)
        assert {offer.expires_at for offer in batch} == {START}
        assert all(offer.is_cutoff_batch for offer in batch)


class TestLottery:
    """batches drawn at random, in the database, never-expired members first."""

    def test_the_draw_happens_in_the_database_with_a_limit(self):
        event = active_event(10, attendees=7, waitlist_batch_size=5, waitlist_lottery_mode=True)
        queue = queue_in_order(event, 12)

        with CaptureQueriesContext(connection) as captured:
            result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 3  # min(5, 3 available)
        draws = [
            q["sql"]
            for q in captured.captured_queries
            if "eventwaitlist" in q["sql"] and RANDOM_SQL.search(q["sql"])
        ]
        assert len(draws) == 1
        assert "LIMIT 3" in draws[0].upper()
        assert offered_ids(event) <= ids(queue)

    def test_draws_are_random_and_never_exceed_the_seats_available(self):
        event = active_event(10, attendees=8, waitlist_batch_size=5, waitlist_lottery_mode=True)
        queue = queue_in_order(event, 10)
        draws = set()

        for _ in range(25):
            result = waitlist_service.process_waitlist_for_event(event.pk)
            assert result.offers_created == 2
            chosen = offered_ids(event)
            assert len(chosen) == 2
            assert chosen <= ids(queue)
            draws.add(frozenset(chosen))
            WaitlistOffer.objects.filter(event=event).delete()

        # 45 possible pairs: 25 FIFO-identical draws would mean no lottery at all.
        assert len(draws) > 1

    def test_never_expired_members_are_drawn_before_rotated_ones(self):
        event = active_event(10, attendees=7, waitlist_batch_size=5, waitlist_lottery_mode=True)
        queue = queue_in_order(event, 8)
        # The first five in join order let an offer lapse; the last three never did.
        rotate(event, *queue[:5])

        for _ in range(10):
            waitlist_service.process_waitlist_for_event(event.pk)
            assert offered_ids(event) == ids(queue[5:])
            WaitlistOffer.objects.filter(event=event).delete()

    def test_rotated_members_are_drawn_once_the_others_run_out(self):
        event = active_event(10, attendees=5, waitlist_batch_size=5, waitlist_lottery_mode=True)
        queue = queue_in_order(event, 8)
        rotate(event, *queue[:5])

        waitlist_service.process_waitlist_for_event(event.pk)

        chosen = offered_ids(event)
        assert len(chosen) == 5
        assert ids(queue[5:]) <= chosen
        assert len(chosen & ids(queue[:5])) == 2

    def test_open_mode_lottery_samples_as_many_as_seats_available(self):
        event = active_event(10, attendees=6, waitlist_batch_size=0, waitlist_lottery_mode=True)
        queue = queue_in_order(event, 9)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 4
        assert offered_ids(event) <= ids(queue)


# -- what the user sees ---------------------------------------------------------------------
def eligibility(api, user, event) -> dict:
    response = api(user).get(f"/events/{event.pk}/my-status")
    assert response.status_code == 200
    return response.json()


def at(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


class TestWhatTheUserSees:
    def test_capacity_available_is_allowed(self, api):
        event = active_event(3, attendees=1)

        answer = eligibility(api, make_user(), event)["eligibility"]

        assert answer["allowed"] is True
        assert (answer["reason_code"], answer["next_step"]) == (None, None)

    def test_full_on_attendees_alone_invites_to_join_the_open_queue(self, api):
        event = active_event(2, attendees=2)

        answer = eligibility(api, make_user(), event)["eligibility"]

        assert answer["allowed"] is False
        assert (answer["reason_code"], answer["next_step"]) == ("event_is_full", "join_waitlist")

    def test_full_with_the_queue_closed_offers_no_next_step(self, api):
        event = active_event(2, attendees=2, waitlist_open=False)

        answer = eligibility(api, make_user(), event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == ("event_is_full", None)

    def test_full_on_attendees_alone_while_queued_means_waiting(self, api):
        event = active_event(2, attendees=2)
        _first, second = queue_in_order(event, 2)

        answer = eligibility(api, second, event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == (
            "event_is_full",
            "wait_for_open_spot",
        )
        assert answer["waitlist_position"] == 2

    def test_full_because_of_reserved_offers_for_a_visitor(self, api):
        event = active_event(3, attendees=1)
        first, second = queue_in_order(event, 2)
        give_offer(event, first, expires_at=T0 + timedelta(minutes=40))
        give_offer(event, second, expires_at=T0 + timedelta(minutes=32))
        give_offer(event, make_user(), expires_at=T0 - timedelta(minutes=1))  # lapsed: no hold

        answer = eligibility(api, make_user(), event)["eligibility"]

        assert answer["allowed"] is False
        assert (answer["reason_code"], answer["next_step"]) == (
            "spots_reserved_for_waitlist",
            "join_waitlist",
        )
        assert answer["pending_offers_count"] == 2
        assert at(answer["next_batch_at"]) == T0 + timedelta(minutes=32)

    def test_next_batch_at_is_given_in_the_users_timezone(self, api):
        event = active_event(2, attendees=1)
        give_offer(event, make_user(), expires_at=T0 + WINDOW)

        answer = eligibility(api, make_user(timezone="Asia/Tokyo"), event)["eligibility"]

        assert answer["next_batch_at"].endswith("+09:00")
        assert at(answer["next_batch_at"]) == T0 + WINDOW

    def test_full_because_of_reserved_offers_while_queued_without_an_offer(self, api):
        event = active_event(3, attendees=1)
        holder, other_holder, waiting = queue_in_order(event, 3)
        give_offer(event, holder)
        give_offer(event, other_holder)

        answer = eligibility(api, waiting, event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == (
            "on_waitlist_waiting_for_batch",
            "wait_for_open_spot",
        )
        assert answer["waitlist_position"] == 1
        assert answer["pending_offers_count"] == 2

    def test_an_offer_holder_is_allowed_with_the_countdown(self, api):
        event = active_event(3, attendees=1)
        holder, other_holder = queue_in_order(event, 2)
        offer = give_offer(event, holder, expires_at=T0 + WINDOW)
        give_offer(event, other_holder)

        body = eligibility(api, holder, event)
        answer = body["eligibility"]

        assert answer["allowed"] is True
        assert (answer["reason_code"], answer["next_step"]) == (None, None)
        assert at(answer["active_offer_expires_at"]) == T0 + WINDOW
        assert body["waitlist"]["position"] is None
        assert body["offer"]["id"] == str(offer.pk)

    def test_after_the_cutoff_the_ordinary_rules_apply(self, api):
        cutoff = START - timedelta(hours=6)
        event = active_event(2, attendees=1, waitlist_cutoff_date=cutoff)
        # A non-cutoff offer from before the cutoff still holds the last seat.
        give_offer(event, make_user(), expires_at=cutoff + timedelta(hours=1))

        with time_machine.travel(cutoff + timedelta(minutes=5), tick=False):
            answer = eligibility(api, make_user(), event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == ("event_is_full", "join_waitlist")

    def test_after_the_cutoff_a_queued_user_waits_at_most(self, api):
        cutoff = START - timedelta(hours=6)
        event = active_event(2, attendees=2, waitlist_cutoff_date=cutoff)
        [queued] = queue_in_order(event, 1)

        with time_machine.travel(cutoff + timedelta(minutes=5), tick=False):
            answer = eligibility(api, queued, event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == (
            "event_is_full",
            "wait_for_open_spot",
        )

    def test_a_lapsed_offer_is_no_countdown(self, api):
        event = active_event(2, attendees=2)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder, expires_at=T0 - timedelta(seconds=1))

        body = eligibility(api, holder, event)

        assert body["eligibility"]["active_offer_expires_at"] is None
        assert body["offer"] is None
        assert body["waitlist"]["position"] == 1
        assert WaitlistOffer.objects.get(user=holder).status == Status.PENDING


# -- Encore decisions: where Encore does better than the seed -------------------------------
class TestOnlyUsefulOffers:
    """Offers go out only where they can be turned into a seat."""

    @staticmethod
    def _sold_out_tier(capacity: int, *, sold: int, quantity: int) -> tuple[Event, TicketTier]:
        """A ticketed event with room left, but a tier that can sell only `quantity`."""
        event, tier, _ = active_ticketed_event(capacity, sold=sold, waitlist_batch_size=5)
        TicketTier.objects.filter(pk=tier.pk).update(total_quantity=quantity)
        return event, tier

    def test_no_offer_while_every_tier_on_sale_is_sold_out(self):
        event, _ = self._sold_out_tier(10, sold=5, quantity=5)
        queue_in_order(event, 3)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "no_spots"
        assert offers_of(event) == []

    def test_a_batch_is_capped_at_the_tickets_left_held_seats_included(self):
        event, _ = self._sold_out_tier(10, sold=5, quantity=8)  # 3 tickets left
        first, *rest = queue_in_order(event, 5)
        give_offer(event, first)  # holds one of them

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 2
        assert offered_ids(event) == ids([first, *rest[:2]])

    def test_a_tier_not_on_sale_yet_counts_for_nothing(self):
        event, _ = self._sold_out_tier(10, sold=5, quantity=5)
        make_tier(event, name="Late release", sales_start_at=T0 + timedelta(days=1))
        queue_in_order(event, 3)

        assert waitlist_service.process_waitlist_for_event(event.pk).status == "no_spots"

    def test_an_unlimited_tier_on_sale_leaves_the_event_capacity_as_the_bound(self):
        event, _ = self._sold_out_tier(10, sold=5, quantity=5)
        make_tier(event, name="Standing")
        queue_in_order(event, 7)

        assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 5

    def test_pending_tickets_count_as_attendees(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event, _, _ = active_ticketed_event(3, sold=2)
        unpaid_tier = offline_tier(event)
        [waiting] = queue_in_order(event, 1)

        response = api(make_user()).post(f"/events/{event.pk}/checkout", cart((unpaid_tier, 1)))
        assert response.status_code == 201
        assert response.json()["tickets"][0]["status"] == Ticket.Status.PENDING

        assert waitlist_service.process_waitlist_for_event(event.pk).status == "no_spots"
        assert offers_of(event) == []

        # The unpaid ticket lapses: its seat goes to the queue.
        moment = T0 + timedelta(hours=unpaid_tier.payment_due_hours, minutes=1)
        with (
            time_machine.travel(moment, tick=False),
            django_capture_on_commit_callbacks(execute=True),
        ):
            tasks.expire_unpaid_tickets()
        assert offered_ids(event) == {waiting.pk}

    @pytest.mark.parametrize(
        "fields",
        [
            pytest.param({"status": Event.Status.CANCELLED}, id="cancelled"),
            pytest.param({"status": Event.Status.CLOSED}, id="closed"),
            pytest.param({"status": Event.Status.DRAFT}, id="draft"),
            pytest.param(
                {"start": T0 - timedelta(hours=3), "end": T0 - timedelta(hours=1)}, id="finished"
            ),
            pytest.param({"start": T0, "end": T0 + timedelta(hours=3)}, id="started"),
            pytest.param({"max_attendees": 0}, id="unlimited"),
            pytest.param({"rsvp_before": T0 - timedelta(minutes=1)}, id="rsvps-closed"),
        ],
    )
    def test_no_offer_where_it_is_of_no_use(self, fields):
        capacity = fields.pop("max_attendees", 3)
        event = active_event(capacity, attendees=1, **fields)
        queue_in_order(event, 2)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "disabled"
        assert offers_of(event) == []
        assert event.pk not in waitlist_service.nudge_open_waitlists()

    def test_a_passed_rsvp_deadline_does_not_stop_offers_of_a_ticketed_event(self):
        event, _, _ = active_ticketed_event(3, sold=1, rsvp_before=T0 - timedelta(minutes=1))
        queue_in_order(event, 1)

        assert waitlist_service.process_waitlist_for_event(event.pk).status == "ok"
        assert offers_of(event)[0].expires_at == T0 + WINDOW

    def test_the_sweeper_never_meets_a_born_expired_offer(self, django_capture_on_commit_callbacks):
        """Offers past the RSVP deadline would expire at birth: the sweep would then tell
        the queue "your offer expired" about offers never sent, and rotate everyone."""
        event = active_event(3, attendees=1, rsvp_before=T0 + timedelta(minutes=30))
        queue_in_order(event, 4)

        with (
            time_machine.travel(T0 + timedelta(hours=1), tick=False),
            django_capture_on_commit_callbacks(execute=True),
        ):
            waitlist_service.nudge_open_waitlists()
            waitlist_service.expire_waitlist_offers()

        assert offers_of(event) == []
        assert not EventWaitList.objects.filter(last_offer_expired_at__isnull=False).exists()

    def test_an_event_starting_now_gets_no_offer(self):
        event = active_event(3, attendees=1, start=T0 + timedelta(hours=1))
        queue_in_order(event, 1)

        with time_machine.travel(event.start, tick=False):
            assert waitlist_service.process_waitlist_for_event(event.pk).status == "disabled"

        assert offers_of(event) == []


class TestDeadlines:
    """expires_at = min(now + window, event.start, rsvp_before)."""

    def test_the_window_when_it_ends_first(self):
        event = active_event(3, attendees=1, rsvp_before=T0 + timedelta(hours=5))
        queue_in_order(event, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert offers_of(event)[0].expires_at == T0 + WINDOW

    def test_the_start_when_it_comes_first(self):
        event = active_event(3, attendees=1, start=T0 + timedelta(minutes=45))
        queue_in_order(event, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert offers_of(event)[0].expires_at == T0 + timedelta(minutes=45)

    def test_the_rsvp_deadline_when_it_comes_first(self):
        event = active_event(3, attendees=1, rsvp_before=T0 + timedelta(minutes=30))
        queue_in_order(event, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert offers_of(event)[0].expires_at == T0 + timedelta(minutes=30)


class TestLeavingAndCancelling:
    def test_leaving_works_after_the_waitlist_is_closed(self, api):
        event = active_event(2, attendees=2, waitlist_open=False)
        [member] = queue_in_order(event, 1)

        response = api(member).delete(f"/events/{event.pk}/waitlist/leave")

        assert response.status_code == 204
        assert not EventWaitList.objects.filter(event=event).exists()

    def test_leaving_expires_a_held_offer_and_hands_the_seat_on(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(3, attendees=2, waitlist_batch_size=1)
        first, second = queue_in_order(event, 2)
        waitlist_service.process_waitlist_for_event(event.pk)
        assert offered_ids(event) == {first.pk}

        with django_capture_on_commit_callbacks(execute=True):
            response = api(first).delete(f"/events/{event.pk}/waitlist/leave")

        assert response.status_code == 204
        [left] = WaitlistOffer.objects.filter(event=event, user=first)
        assert (left.status, left.revoked_reason) == (Status.EXPIRED, "")
        assert statuses(passes) == ["ok", "ok"]  # the setup's pass, then the leave's
        assert offered_ids(event) == {second.pk}

    def test_cancelling_revokes_and_uncancelling_offers_again(
        self, api, django_capture_on_commit_callbacks
    ):
        event = active_event(3, attendees=2)
        [member] = queue_in_order(event, 1)
        waitlist_service.process_waitlist_for_event(event.pk)
        owner = api(event.organization.owner)

        with django_capture_on_commit_callbacks(execute=True):
            assert owner.post(f"/event-admin/{event.pk}/status/cancelled").status_code == 200
        [revoked] = WaitlistOffer.objects.filter(event=event)
        assert (revoked.status, revoked.revoked_reason) == (Status.REVOKED, Reason.EVENT_CANCELLED)

        with django_capture_on_commit_callbacks(execute=True):
            assert owner.post(f"/event-admin/{event.pk}/status/open").status_code == 200
        assert offered_ids(event) == {member.pk}  # a system revoke keeps the user eligible


class TestCutoffOffersReserveNothing:
    def _cutoff_holder_and_reservation(self, event):
        cutoff_holder, reserved_for = queue_in_order(event, 2)
        give_offer(event, reserved_for, expires_at=event.waitlist_cutoff_date + WINDOW)
        give_offer(event, cutoff_holder, expires_at=event.start, cutoff=True)
        return cutoff_holder, reserved_for

    def test_a_cutoff_holder_never_nets_out_someone_elses_reservation(self, api):
        cutoff = START - timedelta(hours=6)
        event = active_event(3, attendees=2, waitlist_cutoff_date=cutoff)
        cutoff_holder, reserved_for = self._cutoff_holder_and_reservation(event)

        with time_machine.travel(cutoff + timedelta(minutes=1), tick=False):
            refused = api(cutoff_holder).post(f"/events/{event.pk}/rsvp/yes")
            claimed = api(reserved_for).post(f"/events/{event.pk}/rsvp/yes")

        assert refused.status_code == 409
        assert refused.json()["code"] == "event_is_full"
        assert at(refused.json()["active_offer_expires_at"]) == event.start  # still counts down
        assert claimed.status_code == 200

    def test_a_staff_registration_refused_by_the_locked_check_shows_the_countdown(self, api):
        cutoff = START - timedelta(hours=6)
        event = active_event(3, attendees=2, waitlist_cutoff_date=cutoff)
        cutoff_holder, _ = self._cutoff_holder_and_reservation(event)

        with time_machine.travel(cutoff + timedelta(minutes=1), tick=False):
            refused = _admin_rsvp_yes(api, event, cutoff_holder)

        assert refused.status_code == 409
        assert refused.json()["code"] == "event_is_full"
        assert at(refused.json()["active_offer_expires_at"]) == event.start

    def test_nor_at_checkout(self, api):
        cutoff = START - timedelta(hours=6)
        event, tier, _ = active_ticketed_event(3, sold=2, waitlist_cutoff_date=cutoff)
        cutoff_holder, _ = self._cutoff_holder_and_reservation(event)

        with time_machine.travel(cutoff + timedelta(minutes=1), tick=False):
            refused = api(cutoff_holder).post(f"/events/{event.pk}/checkout", cart((tier, 1)))

        assert refused.status_code == 409
        assert refused.json()["code"] == "event_is_full"
        assert at(refused.json()["active_offer_expires_at"]) == event.start


class TestOneSeatPerOffer:
    def test_an_offer_holder_may_buy_their_seat_but_not_two(self, api):
        event, tier, _ = active_ticketed_event(10, sold=9)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder)

        refused = api(holder).post(f"/events/{event.pk}/checkout", cart((tier, 2)))
        bought = api(holder).post(f"/events/{event.pk}/checkout", cart((tier, 1)))

        assert refused.status_code == 409
        assert refused.json()["code"] == "event_is_full"
        assert bought.status_code == 201
        assert reload(event).attendee_count == 10

    def test_others_may_take_the_seats_nobody_holds(self, api):
        event, tier, _ = active_ticketed_event(10, sold=7)
        holder, _ = queue_in_order(event, 2)
        give_offer(event, holder)

        too_many = api(make_user()).post(f"/events/{event.pk}/checkout", cart((tier, 3)))
        enough = api(make_user()).post(f"/events/{event.pk}/checkout", cart((tier, 2)))

        assert too_many.status_code == 409
        assert too_many.json()["code"] == "spots_reserved_for_waitlist"
        assert enough.status_code == 201


class TestSoftSkip:
    def test_an_organiser_revoke_keeps_the_user_skipped(self):
        event = active_event(3, attendees=2, waitlist_batch_size=1)
        first, second = queue_in_order(event, 2)
        waitlist_service.process_waitlist_for_event(event.pk)
        waitlist_service.revoke_offer(event.pk, offers_of(event)[0].pk)

        waitlist_service.process_waitlist_for_event(event.pk)
        Event.objects.filter(pk=event.pk).update(max_attendees=10)
        waitlist_service.process_waitlist_for_event(event.pk)

        assert offered_ids(event) == {second.pk}
        assert offered_ids(event, Status.REVOKED) == {first.pk}

    @pytest.mark.parametrize("reason", [Reason.EVENT_CANCELLED, Reason.WAITLIST_CLOSED])
    def test_a_system_revoke_leaves_the_user_first_in_line(self, reason):
        event = active_event(3, attendees=2, waitlist_batch_size=1)
        first, _ = queue_in_order(event, 2)
        waitlist_service.process_waitlist_for_event(event.pk)
        with transaction.atomic():
            waitlist_service.revoke_pending_offers(reload(event), reason)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert offered_ids(event) == {first.pk}


def _rsvp_yes(api, event, user):
    return api(user).post(f"/events/{event.pk}/rsvp/yes")


def _admin_rsvp_yes(api, event, user):
    return api(event.organization.owner).post(
        f"/event-admin/{event.pk}/rsvps", {"user_id": str(user.pk), "status": "yes"}
    )


def _checkout_free(api, event, user):
    tier = event.ticket_tiers.get(payment_method=TicketTier.PaymentMethod.FREE)
    return api(user).post(f"/events/{event.pk}/checkout", cart((tier, 1)))


def _checkout_unpaid(api, event, user):
    return api(user).post(f"/events/{event.pk}/checkout", cart((offline_tier(event), 1)))


def _box_office(api, event, user):
    tier = event.ticket_tiers.get(payment_method=TicketTier.PaymentMethod.FREE)
    return api(event.organization.owner).post(
        f"/event-admin/{event.pk}/box-office/sell",
        {"user_id": str(user.pk), "tier_id": str(tier.pk)},
    )


def _path_id(value: object) -> str | None:
    return getattr(value, "__name__", "").strip("_") or None


def _with_attendees(capacity: int, attendees: int, *, ticketed: bool) -> Event:
    """An active-waitlist event with `attendees` RSVPs, or tickets sold when ticketed."""
    if ticketed:
        return active_ticketed_event(capacity, sold=attendees)[0]
    return active_event(capacity, attendees=attendees)


class TestRegistrationLeavesTheQueue:
    @pytest.mark.parametrize(
        ("register", "ticketed"),
        [
            (_rsvp_yes, False),
            (_admin_rsvp_yes, False),
            (_checkout_free, True),
            (_checkout_unpaid, True),
            (_box_office, True),
        ],
        ids=_path_id,
    )
    def test_any_registration_removes_the_queue_entry(self, api, register, ticketed):
        event = _with_attendees(3, 1, ticketed=ticketed)
        [member] = queue_in_order(event, 1)

        response = register(api, event, member)

        assert response.status_code in (200, 201), response.json()
        assert not EventWaitList.objects.filter(event=event, user=member).exists()
        assert offers_of(event) == []

    @pytest.mark.parametrize(
        "status", [Ticket.Status.ACTIVE, Ticket.Status.PENDING, "rsvp"], ids=str
    )
    def test_joining_while_attending_is_a_conflict(self, api, status):
        if status == "rsvp":
            event = active_event(1, waitlist_batch_size=1)
            [attendee] = fill_with_rsvps(event, 1)
        else:
            event, _tier, [attendee] = active_ticketed_event(1, sold=1)
            Ticket.objects.filter(event=event).update(status=status)

        response = api(attendee).post(f"/events/{event.pk}/waitlist/join")

        assert response.status_code == 409
        assert response.json()["code"] == "already_attending"
        assert not EventWaitList.objects.filter(event=event).exists()


class TestRefusalsSpeakTheUsersTime:
    """A refused registration's body carries next_batch_at in the user's timezone, like
    my-status: from the gate (self-service) and from the locked re-check (staff)."""

    @pytest.mark.parametrize(
        ("register", "ticketed"),
        [(_rsvp_yes, False), (_admin_rsvp_yes, False), (_checkout_free, True)],
        ids=_path_id,
    )
    def test_next_batch_at_is_in_the_users_timezone(self, api, register, ticketed):
        event = _with_attendees(2, 1, ticketed=ticketed)
        give_offer(event, make_user(), expires_at=T0 + WINDOW)

        response = register(api, event, make_user(timezone="Asia/Tokyo"))

        assert response.status_code == 409, response.json()
        body = response.json()
        assert body["code"] == "spots_reserved_for_waitlist"
        assert body["next_batch_at"].endswith("+09:00")
        assert at(body["next_batch_at"]) == T0 + WINDOW
