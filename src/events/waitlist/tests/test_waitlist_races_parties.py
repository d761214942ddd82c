"""Parties and per-tier queues under contention, on PostgreSQL row locks (issue 12).

Seats, not rows: whatever interleaving the threads find, the attendee count equals the
seats of the YES RSVPs (the attendee and their guests) or the live tickets, never more
than the capacity, and the seats live offers hold never exceed what was free. The
harness (`waitlist_races_support.race`) gives each racer its own connection and records
every outcome; Celery dispatches are recorded, not run.
"""

import random
import uuid
from datetime import timedelta

import pytest
from django.db.models import Sum
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.services.event_manager import EventManager
from events.core.tests.factories import fill_with_rsvps, fill_with_tickets, make_tier
from events.core.tests.threaded_eager import eager_join_flag_cleared_after_race
from events.models import Event, EventRSVP, EventWaitList, Ticket, TicketTier, WaitlistOffer
from events.ticketing.services.batch_tickets.service import BatchTicketService
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_races_support import (
    dispatched,
    fresh,
    offer,
    race,
    unexpected,
    waitlist_event,
)

__all__ = ["dispatched", "eager_join_flag_cleared_after_race"]  # fixtures, for pytest

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

Status = WaitlistOffer.WaitlistOfferStatus


def yes_seats(event: Event) -> int:
    rows = EventRSVP.objects.filter(event=event, status=EventRSVP.Status.YES)
    return sum(rsvp.seats for rsvp in rows)


def held_seats(event: Event) -> int:
    live = WaitlistOffer.objects.filter(
        event=event, status=Status.PENDING, is_cutoff_batch=False, expires_at__gt=timezone.now()
    )
    return int(live.aggregate(n=Sum("seats"))["n"] or 0)


def rsvp_with_guests(person, event_id: uuid.UUID, guests: int):
    def call() -> str:
        manager = EventManager(person, Event.objects.get(pk=event_id))
        return manager.rsvp(EventRSVP.Status.YES, guests=guests).status

    return call


def test_parties_racing_for_the_last_seats_never_oversell(dispatched):
    event = waitlist_event(20, waitlist_max_party_size=5)
    fill_with_rsvps(event, 8)
    rng = random.Random(12)
    calls = [rsvp_with_guests(make_user(), event.pk, rng.randint(0, 4)) for _ in range(30)]

    outcomes = race(calls)

    assert not unexpected(outcomes, {"EligibilityRefused"}), outcomes
    event = fresh(event)
    assert event.attendee_count == yes_seats(event) <= 20
    assert event.attendee_count >= 20 - 4  # refused only when the party did not fit


def test_party_holders_claim_while_strangers_rush_and_nobody_takes_a_held_seat(dispatched):
    event = waitlist_event(10, waitlist_max_party_size=4)
    fill_with_rsvps(event, 4)
    holders = [make_user(), make_user()]
    for holder in holders:
        EventWaitList.objects.create(event=event, user=holder, party_size=3)
        offer(event, holder, expires_in=timedelta(hours=1), seats=3)
    strangers = [make_user() for _ in range(24)]
    calls = [rsvp_with_guests(h, event.pk, 2) for h in holders] + [
        rsvp_with_guests(s, event.pk, 0) for s in strangers
    ]

    outcomes = race(calls)

    assert not unexpected(outcomes, {"EligibilityRefused"}), outcomes
    assert [o.value for o in outcomes[:2]] == ["yes", "yes"], outcomes[:2]
    assert all(o.error == "EligibilityRefused" for o in outcomes[2:]), outcomes[2:]
    event = fresh(event)
    assert event.attendee_count == yes_seats(event) == 10
    assert WaitlistOffer.objects.filter(event=event, status=Status.CLAIMED).count() == 2


def test_concurrent_passes_never_hold_more_seats_than_are_free(dispatched):
    event = waitlist_event(12, waitlist_max_party_size=4, waitlist_party_policy="fill")
    fill_with_rsvps(event, 3)  # 9 free
    rng = random.Random(7)
    for _ in range(25):
        EventWaitList.objects.create(event=event, user=make_user(), party_size=rng.randint(1, 4))

    outcomes = race([lambda: waitlist_service.process_waitlist_for_event(event.pk)] * 12)

    assert not unexpected(outcomes, set()), outcomes
    assert held_seats(event) <= 9
    assert held_seats(event) >= 9 - 3  # fill: only a party that cannot fit leaves seats idle


def test_per_tier_queues_racing_passes_and_buyers_never_oversell_a_tier(dispatched):
    """Passes for a VIP queue race people buying VIP: the tier's hold and its sales
    together never exceed its quantity, and the event never exceeds its capacity."""
    event = waitlist_event(30, requires_ticket=True, waitlist_max_party_size=3)
    free = TicketTier.PaymentMethod.FREE
    vip = make_tier(event, name="VIP", total_quantity=6, payment_method=free)
    standard = make_tier(event, name="Standard", total_quantity=40, payment_method=free)
    fill_with_tickets(event, standard, 10)
    for _ in range(6):
        EventWaitList.objects.create(event=event, user=make_user(), party_size=2, tier=vip)
    buyers = [make_user() for _ in range(12)]

    def buy(person):
        def call() -> int:
            service = BatchTicketService(Event.objects.get(pk=event.pk), person)
            return len(service.create_batch([{"tier_id": vip.pk, "count": 1}]))

        return call

    passes = [lambda: waitlist_service.process_waitlist_for_event(event.pk)] * 6
    outcomes = race(passes + [buy(person) for person in buyers])

    assert not unexpected(outcomes, {"TierSoldOut", "EligibilityRefused"}), outcomes
    vip.refresh_from_db()
    sold = Ticket.objects.filter(tier=vip).exclude(status=Ticket.Status.CANCELLED).count()
    vip_held = int(
        WaitlistOffer.objects.filter(event=event, tier=vip, status=Status.PENDING).aggregate(
            n=Sum("seats")
        )["n"]
        or 0
    )
    assert vip.quantity_sold == sold
    assert sold + vip_held <= 6, (sold, vip_held)
    event = fresh(event)
    assert event.attendee_count + held_seats(event) <= 30
