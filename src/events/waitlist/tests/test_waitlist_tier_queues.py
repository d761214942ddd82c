"""Per-tier queues (issue 12 item 6): on a ticketed event a member may wait for one tier;
that tier's seats go to its own queue first, members queued for the whole event take
them only when nobody waits for that tier, and a tier offer reserves the tier's quantity.
"""

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_tickets, make_event, make_tier
from events.models import Event, EventWaitList, TicketTier, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.selectors.candidates import fifo_candidates
from events.waitlist.selectors.lottery import ring_candidates, tier_queue
from events.waitlist.tests.waitlist_builders import T0, WINDOW, Status, active_event, offers_of

pytestmark = pytest.mark.django_db

FREE = TicketTier.PaymentMethod.FREE


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


def two_tier_event(**fields) -> tuple[Event, TicketTier, TicketTier]:
    """Room for 20; VIP (2) sold out, Standard (10) half sold: 13 seats free in all."""
    fields.setdefault("waitlist_max_party_size", 3)
    event = active_event(20, requires_ticket=True, **fields)
    vip = make_tier(event, name="VIP", total_quantity=2, payment_method=FREE)
    standard = make_tier(event, name="Standard", total_quantity=10, payment_method=FREE)
    fill_with_tickets(event, vip, 2)
    fill_with_tickets(event, standard, 5)
    return event, vip, standard


def queue_for(event: Event, tier: TicketTier | None, party: int = 1, rank: int = 0) -> User:
    person = make_user()
    entry = EventWaitList.objects.create(event=event, user=person, party_size=party, tier=tier)
    EventWaitList.objects.filter(pk=entry.pk).update(
        created_at=T0 - timedelta(days=1) + timedelta(seconds=rank)
    )
    return person


def free_vip_seats(vip: TicketTier, seats: int) -> None:
    TicketTier.objects.filter(pk=vip.pk).update(total_quantity=F("total_quantity") + seats)


def pending(event: Event) -> dict[uuid.UUID, tuple[uuid.UUID | None, int]]:
    return {o.user_id: (o.tier_id, o.seats) for o in offers_of(event, Status.PENDING)}


def join(api, person, event, body):
    return api(person).post(f"/events/{event.pk}/waitlist/join", body)


def buy(api, person, event, tier, count=1):
    return api(person).post(
        f"/events/{event.pk}/checkout", {"items": [{"tier_id": str(tier.pk), "count": count}]}
    )


class TestJoiningATiersQueue:
    def test_a_sold_out_tier_can_be_waited_for_while_another_is_on_sale(self, api):
        event, vip, _standard = two_tier_event()
        person = make_user()

        response = join(api, person, event, {"tier_id": str(vip.pk), "party_size": 2})

        assert response.status_code == 201, response.json()
        assert response.json()["tier_id"] == str(vip.pk)
        entry = EventWaitList.objects.get(event=event, user=person)
        assert (entry.tier_id, entry.party_size) == (vip.pk, 2)

    def test_a_tier_with_room_for_the_party_is_bought_not_waited_for(self, api):
        event, _vip, standard = two_tier_event()

        response = join(api, make_user(), event, {"tier_id": str(standard.pk)})

        assert response.status_code == 409
        assert response.json()["code"] == "capacity_available"

    def test_a_tier_on_an_rsvp_event_is_invalid(self, api):
        event = active_event(1, attendees=1)
        _other, vip, _ = two_tier_event()

        response = join(api, make_user(), event, {"tier_id": str(vip.pk)})

        assert response.status_code == 400
        assert response.json()["code"] == "invalid"
        assert not EventWaitList.objects.filter(event=event).exists()

    def test_a_tier_of_another_event_is_not_found(self, api):
        event, _vip, _standard = two_tier_event()
        elsewhere = make_event(requires_ticket=True)
        foreign = make_tier(elsewhere, payment_method=FREE)

        response = join(api, make_user(), event, {"tier_id": str(foreign.pk)})

        assert response.status_code == 404
        assert not EventWaitList.objects.filter(event=event).exists()


class TestServingTiers:
    def test_a_freed_tier_seat_goes_to_its_own_queue_before_earlier_whole_event_members(self):
        event, vip, standard = two_tier_event()
        TicketTier.objects.filter(pk=standard.pk).update(total_quantity=5)  # sold out too
        whole = queue_for(event, None, rank=0)
        vip_fan = queue_for(event, vip, rank=1)
        free_vip_seats(vip, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert pending(event) == {vip_fan.pk: (vip.pk, 1)}
        assert whole.pk not in pending(event)

    def test_a_tiers_queue_is_not_served_by_another_tiers_seats(self):
        event, vip, standard = two_tier_event()
        TicketTier.objects.filter(pk=standard.pk).update(total_quantity=6)  # one Standard left
        vip_fan = queue_for(event, vip)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "no_eligible_users"
        assert vip_fan.pk not in pending(event)

    def test_whole_event_members_take_a_tier_seat_nobody_waits_for(self):
        event, vip, standard = two_tier_event()
        TicketTier.objects.filter(pk=standard.pk).update(total_quantity=5)
        whole = queue_for(event, None)
        free_vip_seats(vip, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert pending(event) == {whole.pk: (vip.pk, 1)}

    def test_a_tier_party_waits_under_strict_and_whole_event_members_do_not_jump_it(self):
        event, vip, standard = two_tier_event()
        TicketTier.objects.filter(pk=standard.pk).update(total_quantity=5)
        vip_party = queue_for(event, vip, party=3, rank=0)
        whole = queue_for(event, None, rank=1)
        free_vip_seats(vip, 2)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "no_eligible_users"
        assert vip_party.pk not in pending(event) and whole.pk not in pending(event)

    def test_a_tier_offer_holds_the_tier_so_the_next_pass_has_none_of_it(self):
        event, vip, standard = two_tier_event()
        TicketTier.objects.filter(pk=standard.pk).update(total_quantity=5)
        first = queue_for(event, vip, party=2, rank=0)
        queue_for(event, vip, rank=1)
        free_vip_seats(vip, 2)

        waitlist_service.process_waitlist_for_event(event.pk)
        second = waitlist_service.process_waitlist_for_event(event.pk)

        assert pending(event) == {first.pk: (vip.pk, 2)}
        assert second.status == "no_spots"


class TestClaimingAndHolds:
    def _vip_offer(self, event: Event, vip: TicketTier, person: User, seats: int = 1) -> None:
        EventWaitList.objects.create(event=event, user=person, tier=vip, party_size=seats)
        WaitlistOffer.objects.create(
            event=event,
            user=person,
            expires_at=T0 + WINDOW,
            batch_id=uuid.uuid4(),
            seats=seats,
            tier=vip,
        )

    def test_others_buying_the_tier_count_the_hold(self, api):
        event, vip, _standard = two_tier_event()
        free_vip_seats(vip, 1)
        self._vip_offer(event, vip, make_user())

        response = buy(api, make_user(), event, vip)

        assert response.status_code == 409, response.json()
        assert response.json()["code"] == "sold_out"

    def test_the_holder_buys_the_tier_and_claims_the_offer(self, api):
        event, vip, _standard = two_tier_event()
        free_vip_seats(vip, 2)
        holder = make_user()
        self._vip_offer(event, vip, holder, seats=2)

        response = buy(api, holder, event, vip, count=2)

        assert response.status_code == 201, response.json()
        offer = WaitlistOffer.objects.get(event=event, user=holder)
        assert offer.status == Status.CLAIMED
        assert not EventWaitList.objects.filter(event=event, user=holder).exists()

    def test_the_offer_schema_names_the_tier_and_the_seats(self, api):
        event, vip, _standard = two_tier_event()
        free_vip_seats(vip, 2)
        self._vip_offer(event, vip, make_user(), seats=2)

        rows = api(event.organization.owner).get(f"/event-admin/{event.pk}/waitlist-offers")

        [row] = rows.json()["results"]
        assert (row["tier_id"], row["seats"], row["declined_at"]) == (str(vip.pk), 2, None)


class TestOrganiserOffersForATier:
    def test_an_override_for_a_tier_member_needs_room_in_that_tier(self, api):
        event, vip, _standard = two_tier_event()  # VIP sold out, the event has room
        member = queue_for(event, vip)
        entry = EventWaitList.objects.get(event=event, user=member)
        url = f"/event-admin/{event.pk}/waitlist-offers"
        body = {"waitlist_entry_id": str(entry.pk)}

        refused = api(event.organization.owner).post(url, body)
        assert refused.status_code == 409 and refused.json()["code"] == "capacity"

        free_vip_seats(vip, 1)
        made = api(event.organization.owner).post(url, body)
        assert made.status_code == 201, made.json()
        assert made.json()["tier_id"] == str(vip.pk)


def _queue_rows_read(sql: str) -> int:
    """Rows the statement read from the queue table (returned or filtered out), by
    PostgreSQL's own count (EXPLAIN ANALYZE), over every scan of it in the plan."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
        [[plan]] = cursor.fetchall()

    def read(node: dict) -> int:
        own = 0
        if node.get("Relation Name") == "events_eventwaitlist":
            per_loop = node["Actual Rows"] + node.get("Rows Removed by Filter", 0)
            own = per_loop * node["Actual Loops"]
        return own + sum(read(child) for child in node.get("Plans", []))

    return read(plan[0]["Plan"])


@pytest.mark.postgres
class TestATiersQueueIsReadOffItsOwnIndex:
    """A tier's head behind 2,000 whole-event members costs what its own head costs: the
    read walks the tier's members, not everyone queued ahead of them for anything else."""

    AHEAD = 2000

    def _long_queue_then_vip(self) -> tuple[Event, TicketTier, list[User]]:
        event, vip, _standard = two_tier_event()
        whole = User.objects.bulk_create(
            [User(email=f"ahead-{i}@example.com", password="!") for i in range(self.AHEAD)]
        )
        EventWaitList.objects.bulk_create([EventWaitList(event=event, user=u) for u in whole])
        fans = [queue_for(event, vip, rank=self.AHEAD + i) for i in range(5)]
        EventWaitList.objects.filter(event=event, tier__isnull=True).update(
            created_at=T0 - timedelta(days=2)
        )
        with connection.cursor() as cursor:
            cursor.execute('ANALYZE "events_eventwaitlist"')
        return event, vip, fans

    def test_the_fifo_head_of_a_tier(self):
        event, vip, fans = self._long_queue_then_vip()

        with CaptureQueriesContext(connection) as queries:
            head = fifo_candidates(event.pk, now=T0, limit=3, tier_id=vip.pk)
        [statement] = queries.captured_queries

        assert [c.user_id for c in head] == [fan.pk for fan in fans[:3]]
        assert _queue_rows_read(statement["sql"]) <= 3

    def test_the_lottery_ring_of_a_tier(self):
        event, vip, fans = self._long_queue_then_vip()

        with CaptureQueriesContext(connection) as queries:
            read = ring_candidates(
                event.pk, start=0, start_rotated=0, now=T0, limit=3, queue=tier_queue(vip.pk)
            )
        [statement] = queries.captured_queries

        assert {c.user_id for c in read.fresh} <= {fan.pk for fan in fans}
        assert len(read.fresh) == 3
        # Each of the four arcs reads at most its limit of the tier's members.
        assert _queue_rows_read(statement["sql"]) <= 4 * 3


def _tiers_keyed(event: Event, low_key_first: bool, *specs: dict) -> list[TicketTier]:
    """Free tiers made from `specs`, the first with the lower key or the higher one: the
    serving order must not depend on it (UUID keys are random)."""
    keys = [uuid.UUID(int=1), uuid.UUID(int=2)]
    if not low_key_first:
        keys.reverse()
    return [
        make_tier(event, id=key, payment_method=FREE, **spec)
        for key, spec in zip(keys, specs, strict=True)
    ]


def _general_and_vip(*, vip_key_first: bool, lottery: bool) -> tuple[Event, TicketTier]:
    """One seat free: General (unlimited, nobody waits for it) and VIP (one seat freed)."""
    event = active_event(3, requires_ticket=True, waitlist_lottery_mode=lottery)
    vip, general = _tiers_keyed(
        event, vip_key_first, {"name": "VIP", "total_quantity": 2, "price": 50}, {"name": "General"}
    )
    fill_with_tickets(event, general, 1)
    fill_with_tickets(event, vip, 1)
    return event, vip


class TestServingOrderAcrossTiers:
    """Every tier's own queue is served before whole-event members take seats through any
    tier, whatever order the tiers' keys fall in (docs/architecture/waitlist-parties-and-tiers.md,
    "Serving")."""

    @pytest.mark.parametrize("lottery", [False, True], ids=["fifo", "lottery"])
    @pytest.mark.parametrize("vip_key_first", [True, False], ids=["vip-key-low", "vip-key-high"])
    def test_a_tier_queue_gets_the_seat_before_an_earlier_whole_event_member(
        self, vip_key_first, lottery
    ):
        event, vip = _general_and_vip(vip_key_first=vip_key_first, lottery=lottery)
        whole = queue_for(event, None, rank=0)
        vip_fan = queue_for(event, vip, rank=1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert pending(event) == {vip_fan.pk: (vip.pk, 1)}
        assert whole.pk not in pending(event)

    @pytest.mark.parametrize("lottery", [False, True], ids=["fifo", "lottery"])
    @pytest.mark.parametrize(
        "cheap_key_first", [True, False], ids=["cheap-key-low", "cheap-key-high"]
    )
    def test_between_tier_queues_the_cheaper_tier_is_served_first(self, cheap_key_first, lottery):
        event = active_event(2, requires_ticket=True, waitlist_lottery_mode=lottery)
        balcony, stalls = _tiers_keyed(
            event,
            cheap_key_first,
            {"name": "Balcony", "price": 20, "total_quantity": 2},
            {"name": "Stalls", "price": 80, "total_quantity": 2},
        )
        fill_with_tickets(event, stalls, 1)
        stalls_fan = queue_for(event, stalls, rank=0)
        balcony_fan = queue_for(event, balcony, rank=1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert pending(event) == {balcony_fan.pk: (balcony.pk, 1)}
        assert stalls_fan.pk not in pending(event)
