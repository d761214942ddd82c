"""The provable lottery on a ticketed event (issue 12 items 5 and 6 together).

A ticketed lottery pass keeps the per-tier routing of a FIFO pass (each tier on sale:
its own queue first, members queued for the whole event only when nobody waits for it)
but draws within each queue on the ring, recording every draw with the tier it served,
so each replays from its record alone (ADR 0018).
"""

import uuid

import pytest
import time_machine
from django.core.management import call_command
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from accounts.tests.factories import make_user
from common.compiled_query import expanded
from events.core.tests.factories import fill_with_tickets, make_tier
from events.models import Event, EventWaitList, TicketTier, WaitlistDraw, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.services import lottery
from events.waitlist.tests.waitlist_builders import T0, Status, active_event

pytestmark = pytest.mark.django_db

FREE = TicketTier.PaymentMethod.FREE


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


def lottery_tiers(**fields) -> tuple[Event, TicketTier, TicketTier]:
    """Room for 20, lottery mode; VIP (2) sold out, Standard (10) sold out at 5 (the
    tests free seats of either): 13 seats free in the event, none in a tier."""
    fields.setdefault("waitlist_max_party_size", 3)
    fields.setdefault("waitlist_batch_size", 10)
    event = active_event(20, requires_ticket=True, waitlist_lottery_mode=True, **fields)
    vip = make_tier(event, name="VIP", total_quantity=2, payment_method=FREE)
    standard = make_tier(event, name="Standard", total_quantity=5, payment_method=FREE)
    fill_with_tickets(event, vip, 2)
    fill_with_tickets(event, standard, 5)
    return event, vip, standard


def free_seats(tier: TicketTier, seats: int) -> None:
    TicketTier.objects.filter(pk=tier.pk).update(total_quantity=F("total_quantity") + seats)


def queue_for(event: Event, tier: TicketTier | None, count: int = 1, party: int = 1) -> list[User]:
    people = [make_user() for _ in range(count)]
    EventWaitList.objects.bulk_create(
        EventWaitList(event=event, user=person, tier=tier, party_size=party) for person in people
    )
    return people


def pending(event: Event) -> dict[uuid.UUID, uuid.UUID | None]:
    """Holder -> the tier their pending offer holds."""
    offers = WaitlistOffer.objects.filter(event=event, status=Status.PENDING)
    return dict(offers.values_list("user_id", "tier_id"))


def tokens_of(event: Event, people: list[User]) -> set[str]:
    found = EventWaitList.objects.filter(event=event, user__in=people)
    return {lottery.token_text(t) for t in found.values_list("token", flat=True)}


def ids(people: list[User]) -> set[uuid.UUID]:
    return {person.pk for person in people}


def replays(draw: WaitlistDraw) -> bool:
    again = lottery.replay_draw(
        draw.seed, draw.eligible, draw.party_sizes, draw.seats, draw.batch_size, draw.policy
    )
    return again == draw.selected


class TestRecordedTierDraws:
    def test_each_tier_served_gets_its_own_record_and_each_replays(self, capsys):
        event, vip, standard = lottery_tiers()
        free_seats(vip, 2)
        free_seats(standard, 3)
        vip_fans = queue_for(event, vip, 6)
        whole = queue_for(event, None, 8)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert (result.status, result.offers_created) == ("ok", 5)
        draws = {d.tier_id: d for d in WaitlistDraw.objects.filter(event=event)}
        assert set(draws) == {vip.pk, standard.pk}
        by_tier = pending(event)
        vip_holders = {user for user, tier in by_tier.items() if tier == vip.pk}
        standard_holders = {user for user, tier in by_tier.items() if tier == standard.pk}
        assert len(vip_holders) == 2 and vip_holders <= ids(vip_fans)
        assert len(standard_holders) == 3 and standard_holders <= ids(whole)
        for tier_id, holders in ((vip.pk, vip_holders), (standard.pk, standard_holders)):
            draw = draws[tier_id]
            offers = WaitlistOffer.objects.filter(batch_id=draw.batch_id)
            assert set(offers.values_list("user_id", flat=True)) == holders
            assert set(draw.selected) == tokens_of(event, [User(pk=pk) for pk in holders])
            assert draw.algorithm == "encore-ring-v1" and replays(draw)
            call_command("replay_waitlist_draw", str(draw.batch_id))
            out = capsys.readouterr().out
            assert f"match: {len(draw.selected)} selected" in out
        assert (draws[vip.pk].seats, draws[standard.pk].seats) == (2, 3)
        # VIP's own queue is drawn first, whole-event members for Standard after it; the
        # batch size counts offers across the pass: 10, then what VIP's draw left.
        first, second = vip, standard
        assert draws[first.pk].batch_size == 10
        assert draws[second.pk].batch_size == 10 - len(draws[first.pk].selected)
        assert result.batch_id == draws[first.pk].batch_id

    def test_the_pass_reads_the_ring_never_order_by_random(self):
        event, vip, standard = lottery_tiers()
        free_seats(vip, 1)
        free_seats(standard, 2)
        queue_for(event, vip, 3)
        queue_for(event, None, 5)

        with CaptureQueriesContext(connection) as queries:
            result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 3
        statements = [expanded(q["sql"]).lower() for q in queries.captured_queries]
        assert not [sql for sql in statements if "random" in sql]
        assert WaitlistDraw.objects.filter(event=event).count() == 2


class TestRouting:
    def test_a_tiers_own_queue_is_drawn_before_members_queued_for_the_whole_event(self):
        event, vip, _standard = lottery_tiers()
        whole = queue_for(event, None, 4)  # queued first, and more of them
        vip_fans = queue_for(event, vip, 3)
        free_seats(vip, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        [(holder, tier)] = pending(event).items()
        assert holder in ids(vip_fans) and tier == vip.pk
        [draw] = WaitlistDraw.objects.filter(event=event)
        assert draw.tier_id == vip.pk
        assert draw.eligible and set(draw.eligible) <= tokens_of(event, vip_fans)
        assert not set(draw.eligible) & tokens_of(event, whole)

    def test_whole_event_members_take_a_tiers_seats_when_its_queue_is_empty(self):
        event, vip, _standard = lottery_tiers()
        whole = queue_for(event, None, 5)
        free_seats(vip, 2)

        waitlist_service.process_waitlist_for_event(event.pk)

        offers = pending(event)
        assert len(offers) == 2 and set(offers) <= ids(whole)
        assert set(offers.values()) == {vip.pk}
        [draw] = WaitlistDraw.objects.filter(event=event)
        assert draw.tier_id == vip.pk and replays(draw)

    def test_a_member_queued_for_another_tier_is_never_offered_this_one(self):
        event, vip, standard = lottery_tiers()
        vip_fans = queue_for(event, vip, 5)
        free_seats(standard, 1)

        alone = waitlist_service.process_waitlist_for_event(event.pk)

        assert alone.status == "no_eligible_users"
        assert not WaitlistOffer.objects.filter(event=event).exists()
        assert not WaitlistDraw.objects.filter(event=event).exists()

        whole = queue_for(event, None, 2)
        waitlist_service.process_waitlist_for_event(event.pk)

        [(holder, tier)] = pending(event).items()
        assert holder in ids(whole) and tier == standard.pk
        [draw] = WaitlistDraw.objects.filter(event=event)
        assert not set(draw.eligible) & tokens_of(event, vip_fans)

    def test_a_tier_party_that_does_not_fit_keeps_its_seats_under_strict(self):
        event, vip, _standard = lottery_tiers()
        queue_for(event, vip, 2, party=3)
        queue_for(event, None, 3)
        free_seats(vip, 2)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "no_eligible_users"
        assert not WaitlistOffer.objects.filter(event=event).exists()

    def test_a_whole_event_member_drawn_for_one_tier_is_not_drawn_again_for_the_next(self):
        event, vip, standard = lottery_tiers()
        [only] = queue_for(event, None)
        free_seats(vip, 1)
        free_seats(standard, 1)
        first = standard  # same price: "Standard" is served before "VIP" by name

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 1
        assert pending(event) == {only.pk: first.pk}
        [draw] = WaitlistDraw.objects.filter(event=event)
        assert draw.tier_id == first.pk and replays(draw)


class TestCost:
    def test_the_ticketed_lottery_pass_costs_the_same_for_1000_and_3000_members(self):
        counts = []
        for members in (1000, 3000):
            event, vip, standard = lottery_tiers(waitlist_batch_size=20)
            free_seats(vip, 2)
            free_seats(standard, 5)
            users = User.objects.bulk_create(
                [
                    User(email=f"tier-{members}-{i}@example.com", password="!")
                    for i in range(members)
                ]
            )
            EventWaitList.objects.bulk_create(
                [
                    EventWaitList(event=event, user=u, tier=vip if i % 10 == 0 else None)
                    for i, u in enumerate(users)
                ],
                batch_size=1000,
            )
            with CaptureQueriesContext(connection) as queries:
                result = waitlist_service.process_waitlist_for_event(event.pk)
            assert result.offers_created == 7
            counts.append(len(queries))
        # lock, held seats, tiers, VIP's ring read, Standard's own ring read (empty), the
        # whole-event members' ring read, the offers with their records (SQLite writes
        # the records in a statement of their own); no savepoint.
        assert counts[0] == counts[1] == (7 if connection.vendor == "postgresql" else 8)
