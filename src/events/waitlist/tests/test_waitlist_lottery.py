"""The provable lottery (issue 12 item 5, ADR 0018): ring order, records, replays, cost.

Tickets are set explicitly where the order matters (`tickets`), and seeds are fixed by
patching `lottery.new_seed`, so every expectation below is certain, not probable.
"""

import uuid
from collections.abc import Iterator, Sequence
from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from events.models import Event, EventWaitList, WaitlistDraw, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.selectors.lottery import RING, ring_candidates
from events.waitlist.services import lottery
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order

pytestmark = pytest.mark.django_db

Status = WaitlistOffer.WaitlistOfferStatus
#: Two published seeds whose start points lie far apart on the ring (0.011 and 0.516 of it).
SEED_A = "1" * 64
SEED_B = "5" * 64


def tickets(event: Event, people: Sequence[User], values: Sequence[int]) -> dict[int, User]:
    """Give the people's entries these tickets; returns ticket -> user."""
    for person, value in zip(people, values, strict=True):
        EventWaitList.objects.filter(event=event, user=person).update(token=value)
    return dict(zip(values, people, strict=True))


def spread(n: int) -> list[int]:
    """n tickets evenly spaced round the ring, from 0."""
    return [i * (RING // n) for i in range(n)]


def hexed(values: Sequence[int]) -> list[str]:
    return [format(value, "016x") for value in values]


@pytest.fixture
def seeds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Append seeds to the list; each draw takes the next one (then fresh random ones)."""
    queued: list[str] = []
    real = lottery.new_seed
    monkeypatch.setattr(lottery, "new_seed", lambda: queued.pop(0) if queued else real())
    yield queued


def lottery_event(capacity: int, attendees: int = 0, **fields) -> Event:
    fields.setdefault("waitlist_batch_size", 5)
    return active_event(capacity, attendees, waitlist_lottery_mode=True, **fields)


def drawn(result: waitlist_service.WaitlistProcessingResult) -> WaitlistDraw:
    """The record of the pass's (first) batch."""
    assert result.batch_id is not None, result
    return WaitlistDraw.objects.get(batch_id=result.batch_id)


def offered_tokens(event: Event) -> set[str]:
    holders = WaitlistOffer.objects.filter(event=event, status=Status.PENDING).values("user_id")
    found = EventWaitList.objects.filter(event=event, user_id__in=holders)
    return set(hexed(list(found.values_list("token", flat=True))))


class TestThePublishedFunction:
    def test_the_start_point_of_a_seed_is_a_fixed_published_value(self):
        # sha256 of 32 zero bytes begins 66687aadf862bd77; shifted right by one bit.
        assert lottery.start_point("0" * 64) == 3689641438530854587
        assert lottery.start_point(SEED_A) == 101934424049685310

    def test_seeds_are_64_hex_digits_and_fresh_each_time(self):
        seeds = {lottery.new_seed() for _ in range(20)}
        assert len(seeds) == 20
        assert all(len(s) == 64 and int(s, 16) >= 0 for s in seeds)

    def test_the_replay_orders_by_distance_past_the_start_and_wraps_round(self):
        start = lottery.start_point(SEED_A)
        before, after, later = start - 5, start + 5, start + 10**9
        got = lottery.replay_draw(SEED_A, hexed([before, later, after]), [1, 1, 1], 2, 0, "strict")
        assert got == hexed([after, later])  # the ticket just before the start comes last

    def test_the_replay_applies_the_party_rule_of_the_record(self):
        start = lottery.start_point(SEED_A)
        tokens = hexed([start + 1, start + 2, start + 3])
        assert lottery.replay_draw(SEED_A, tokens, [3, 1, 1], 2, 0, "strict") == []
        assert lottery.replay_draw(SEED_A, tokens, [3, 1, 1], 2, 0, "fill") == tokens[1:]

    def test_a_record_whose_lists_do_not_match_cannot_be_replayed(self):
        with pytest.raises(lottery.DrawMismatch):
            lottery.replay_draw(SEED_A, hexed([1, 2]), [1], 2, 0, "strict")


class TestRingOrder:
    def read(self, event: Event, start: int, limit: int = 10, start_rotated: int = 0):
        return ring_candidates(
            event.pk, start=start, start_rotated=start_rotated, now=timezone.now(), limit=limit
        )

    def test_tickets_from_the_start_point_up_then_wrapping_round(self):
        event = lottery_event(10)
        people = queue_in_order(event, 6)
        tickets(event, people, [10, 20, 30, 40, 50, 60])

        read = self.read(event, start=35)

        assert [c.token for c in read.fresh] == [40, 50, 60, 10, 20, 30]
        assert read.rotated == []

    def test_a_limit_reads_only_the_next_entries_on_the_ring(self):
        event = lottery_event(10)
        people = queue_in_order(event, 6)
        tickets(event, people, [10, 20, 30, 40, 50, 60])

        assert [c.token for c in self.read(event, start=55, limit=3).fresh] == [60, 10, 20]

    def test_rotated_members_are_a_ring_of_their_own_after_the_others(self):
        event = lottery_event(10)
        people = queue_in_order(event, 4)
        tickets(event, people, [10, 20, 30, 40])
        EventWaitList.objects.filter(event=event, user__in=people[:2]).update(
            last_offer_expired_at=timezone.now()
        )

        read = self.read(event, start=25, start_rotated=15)

        assert [c.token for c in read.fresh] == [30, 40]
        assert [c.token for c in read.rotated] == [20, 10]

    def test_holders_of_a_pending_offer_and_organiser_revoked_members_are_skipped(self):
        event = lottery_event(10)
        holder, revoked, dropped, free = people = queue_in_order(event, 4)
        tickets(event, people, [10, 20, 30, 40])
        give_offer(event, holder)
        for person, reason in ((revoked, "organizer"), (dropped, "waitlist_closed")):
            WaitlistOffer.objects.filter(pk=give_offer(event, person).pk).update(
                status=Status.REVOKED, revoked_reason=reason
            )

        read = self.read(event, start=0)

        # A system revoke leaves the member eligible; the organiser's soft-skips them.
        assert [c.user_id for c in read.fresh] == [dropped.pk, free.pk]


class TestRecordedDraws:
    def test_a_pass_records_its_draw_and_the_replay_gives_the_same_winners(self, capsys):
        event = lottery_event(20, attendees=12, waitlist_party_policy="fill")
        people = queue_in_order(event, 30)
        for rank, person in enumerate(people):
            EventWaitList.objects.filter(event=event, user=person).update(party_size=rank % 3 + 1)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        draw = drawn(result)
        assert draw.algorithm == "encore-ring-v1" and len(draw.seed) == 64
        assert (draw.seats, draw.batch_size, draw.policy) == (8, 5, "fill")
        assert set(draw.selected) == offered_tokens(event)
        held = WaitlistOffer.objects.filter(event=event).values_list("seats", flat=True)
        assert sum(held) <= 8
        again = lottery.replay_draw(
            draw.seed, draw.eligible, draw.party_sizes, draw.seats, draw.batch_size, draw.policy
        )
        assert again == draw.selected

        call_command("replay_waitlist_draw", str(draw.batch_id))
        out = capsys.readouterr().out
        assert f"match: {len(draw.selected)} selected" in out
        assert all(token in out for token in draw.selected)

    def test_the_replay_command_exits_1_when_the_record_does_not_match(self):
        event = lottery_event(10, attendees=7)
        queue_in_order(event, 12)
        result = waitlist_service.process_waitlist_for_event(event.pk)
        draw = drawn(result)
        WaitlistDraw.objects.filter(pk=draw.pk).update(selected=list(reversed(draw.selected)))

        # A CommandError is what `manage.py` turns into its exit status (returncode 1).
        with pytest.raises(CommandError, match="MISMATCH") as refused:
            call_command("replay_waitlist_draw", str(draw.batch_id))
        assert refused.value.returncode == 1
        with pytest.raises(CommandError, match="no lottery draw"):
            call_command("replay_waitlist_draw", str(uuid.uuid4()))

    def test_changing_the_seed_changes_the_winners(self, seeds):
        event = lottery_event(20, attendees=15, waitlist_party_policy="fill")
        people = queue_in_order(event, 80)
        tickets(event, people, spread(80))

        seeds.extend([SEED_A, SEED_A])
        first = waitlist_service.process_waitlist_for_event(event.pk)
        draw_a = drawn(first)
        WaitlistOffer.objects.filter(event=event).delete()
        seeds.extend([SEED_B, SEED_B])
        second = waitlist_service.process_waitlist_for_event(event.pk)
        draw_b = drawn(second)

        assert (draw_a.seed, draw_b.seed) == (SEED_A, SEED_B)
        assert len(draw_a.selected) == len(draw_b.selected) == 5
        assert not set(draw_a.selected) & set(draw_b.selected)
        # The record's own tickets, replayed under the other seed, choose others too.
        swapped = lottery.replay_draw(SEED_B, draw_a.eligible, draw_a.party_sizes, 5, 5, "fill")
        assert swapped != draw_a.selected

    def test_rotated_members_are_drawn_in_a_second_draw_once_the_others_run_out(self):
        event = lottery_event(10, attendees=5)
        people = queue_in_order(event, 8)
        EventWaitList.objects.filter(event=event, user__in=people[:5]).update(
            last_offer_expired_at=timezone.now() - timedelta(hours=1)
        )

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 5
        fresh = drawn(result)
        rotated = WaitlistDraw.objects.exclude(pk=fresh.pk).get(event=event)
        assert (len(fresh.eligible), len(fresh.selected), fresh.seats) == (3, 3, 5)
        assert (len(rotated.selected), rotated.seats, rotated.batch_size) == (2, 2, 2)
        for draw in (fresh, rotated):
            offers = WaitlistOffer.objects.filter(batch_id=draw.batch_id)
            assert offers.count() == len(draw.selected)
            assert draw.selected == lottery.replay_draw(
                draw.seed, draw.eligible, draw.party_sizes, draw.seats, draw.batch_size, "strict"
            )

    def test_under_strict_a_party_too_large_at_the_start_stops_the_draw(self, seeds):
        event = lottery_event(10, attendees=8)  # two seats
        people = queue_in_order(event, 3)
        start = lottery.start_point(SEED_A)
        tickets(event, people, [start + 1, start + 2, start + 3])
        EventWaitList.objects.filter(event=event, user=people[0]).update(party_size=3)
        seeds.extend([SEED_A, SEED_B])

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "no_eligible_users"
        assert not WaitlistOffer.objects.filter(event=event).exists()
        assert not WaitlistDraw.objects.filter(event=event).exists()

    def test_its_offers_carry_what_a_fifo_pass_gives_its_offers(self):
        """The offers are written from columns (`ColumnsInsert`), not instances: each field
        a FIFO pass writes (`offer_batches`) has the same value, the draw's batch its own."""
        now = timezone.now().replace(microsecond=0)
        written = {}
        for lottery_mode in (False, True):
            event = active_event(10, 6, waitlist_batch_size=5, waitlist_lottery_mode=lottery_mode)
            people = queue_in_order(event, 3)
            EventWaitList.objects.filter(event=event, user=people[1]).update(party_size=2)
            with time_machine.travel(now, tick=False):
                result = waitlist_service.process_waitlist_for_event(event.pk)
            offers = WaitlistOffer.objects.filter(event=event)
            assert {o.batch_id for o in offers} == {result.batch_id}
            written[lottery_mode] = sorted(
                (
                    people.index(o.user),
                    o.seats,
                    o.tier_id,
                    o.status,
                    o.expires_at,
                    o.is_cutoff_batch,
                    o.revoked_reason,
                    (o.notified_at, o.claimed_at, o.declined_at),
                    (o.created_at, o.updated_at),
                )
                for o in offers
            )

        assert written[True] == written[False]
        assert [row[:2] for row in written[True]] == [(0, 1), (1, 2), (2, 1)]
        assert written[True][0][4:] == (
            now + timedelta(hours=2),  # the event's offer window
            False,
            "",
            (None, None, None),
            (now, now),
        )


class TestCost:
    def test_the_lottery_pass_costs_the_same_for_1000_and_5000_members(self):
        counts = []
        for members in (1000, 5000):
            event = lottery_event(1000, waitlist_batch_size=50)
            Event.objects.filter(pk=event.pk).update(attendee_count=900)
            users = User.objects.bulk_create(
                [
                    User(email=f"ring-{members}-{i}@example.com", password="!")
                    for i in range(members)
                ]
            )
            EventWaitList.objects.bulk_create(
                [EventWaitList(event=event, user=u) for u in users], batch_size=1000
            )
            with CaptureQueriesContext(connection) as queries:
                result = waitlist_service.process_waitlist_for_event(event.pk)
            assert result.offers_created == 50
            counts.append(len(queries))
        # lock, held seats, the ring read, the offers with their record (SQLite writes the
        # record in a statement of its own); no savepoint inside the caller's transaction.
        assert counts[0] == counts[1] == (4 if connection.vendor == "postgresql" else 5)

    @pytest.mark.postgres
    def test_each_arc_is_a_range_scan_of_the_ring_index_not_a_scan_of_the_queue(self):
        event = lottery_event(1000, waitlist_batch_size=50)
        users = User.objects.bulk_create(
            [User(email=f"plan-{i}@example.com", password="!") for i in range(3000)]
        )
        EventWaitList.objects.bulk_create([EventWaitList(event=event, user=u) for u in users])
        with connection.cursor() as cursor:
            cursor.execute('ANALYZE "events_eventwaitlist"')
        with CaptureQueriesContext(connection) as queries:
            ring_candidates(
                event.pk, start=RING // 2, start_rotated=0, now=timezone.now(), limit=50
            )
        [read] = queries.captured_queries

        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN {read['sql']}")
            plan = "\n".join(row[0] for row in cursor.fetchall())

        assert plan.count("waitlist_lottery_ring") == 4, plan
        assert "Seq Scan on events_eventwaitlist" not in plan, plan
        # Only each part's pair of limited arcs is sorted (by the arc marker first, at most
        # 2 x limit rows), never an arc, which would be its whole side of the ring.
        sort_keys = [line.strip() for line in plan.splitlines() if "Sort Key" in line]
        assert len(sort_keys) == 2, plan
        assert all(key.startswith("Sort Key: (") for key in sort_keys), plan
