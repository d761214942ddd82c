"""docs/spec/seed-tables.md "Configuration matrix", row by row: closed, legacy passive, open, batched
FIFO (with and without a cutoff) and lottery waitlists.

Each matrix row is driven through the path that frees seats in real life (an RSVP change
or a capacity PATCH over HTTP) or, where the row is about selection only, through one
processing pass.
"""

import re
import uuid
from datetime import datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from common.compiled_query import expanded
from events.core.tests.factories import fill_with_rsvps
from events.models import EventWaitList, WaitlistDraw, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import (
    START,
    T0,
    WINDOW,
    Status,
    active_event,
    ids,
    offered_ids,
    offers_of,
    passes,
    queue_in_order,
    statuses,
)
from events.waitlist.tests.waitlist_matrix_support import _at_t0
from notifications.models import Notification, NotificationType

__all__ = ["_at_t0", "passes"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db

#: RAND() on SQLite (Django's function), RANDOM() on PostgreSQL.
RANDOM_SQL = re.compile(r"\bRAND(?:OM)?\(\)", re.IGNORECASE)


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

    def test_the_draw_reads_a_bounded_arc_of_the_ring_and_is_recorded(self):
        """No ORDER BY random() over the queue any more: the draw reads the ring after a
        seeded start point (ADR 0018) and records what it read and chose."""
        event = active_event(10, attendees=7, waitlist_batch_size=5, waitlist_lottery_mode=True)
        queue = queue_in_order(event, 12)

        with CaptureQueriesContext(connection) as captured:
            result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 3  # min(5, 3 available)
        statements = [expanded(q["sql"]) for q in captured.captured_queries]
        reads = [sql for sql in statements if "eventwaitlist" in sql]
        assert reads and not any(RANDOM_SQL.search(sql) for sql in reads)
        assert offered_ids(event) <= ids(queue)
        draw = WaitlistDraw.objects.get(event=event)
        assert draw.batch_id == result.batch_id
        offered_tokens = {
            format(token, "016x")
            for token in EventWaitList.objects.filter(
                event=event, user_id__in=offered_ids(event)
            ).values_list("token", flat=True)
        }
        assert set(draw.selected) == offered_tokens
        assert len(draw.eligible) == 3  # strict: exactly what three seats could take

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
