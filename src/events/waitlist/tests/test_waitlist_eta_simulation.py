"""The honest ETA against the real processor (issue 12 item 4): never late, tight when simple.

Each test builds a queue, lets the real processing pass hand out the first batch, reads
the k-th member's `eta_if_all_ahead_pass`, then lets every offer lapse step by step: the
clock moves to the earliest deadline, the hourly sweep (`expire_waitlist_offers`, the
lapse mechanism) expires it and a pass runs at once (what the per-batch expiry task
does within seconds). The member's offer must be made no later than the ETA, and at
exactly the ETA when every party is one and the offers form a single chain.
"""

from datetime import datetime, timedelta

import pytest
import time_machine

from accounts.models import User
from events.models import Event, WaitlistOffer
from events.waitlist.selectors import eta as waitlist_eta
from events.waitlist.selectors import eta_rules
from events.waitlist.services import expire_waitlist_offers, process_waitlist_for_event
from events.waitlist.tests.waitlist_builders import (
    START,
    T0,
    WINDOW,
    active_event,
    give_offer,
    queue_in_order,
)

pytestmark = pytest.mark.django_db

Status = WaitlistOffer.WaitlistOfferStatus


def eta_of(event: Event, member: User, now: datetime) -> waitlist_eta.Eta:
    with time_machine.travel(now, tick=False):
        found = waitlist_eta.waitlist_eta(Event.objects.get(pk=event.pk), member.pk, now)
    assert found is not None
    return found


def first_offer_time(event: Event, member: User, *, limit: int = 200) -> datetime | None:
    """Let every offer lapse, in deadline order, until the member holds one (or none comes)."""
    for _ in range(limit):
        mine = WaitlistOffer.objects.filter(event=event, user=member, status=Status.PENDING)
        if mine.exists():
            return mine.get().created_at
        pending = WaitlistOffer.objects.filter(event=event, status=Status.PENDING)
        deadline = pending.order_by("expires_at").values_list("expires_at", flat=True).first()
        if deadline is None:
            return None
        with time_machine.travel(deadline, tick=False):
            expire_waitlist_offers(deadline)
            process_waitlist_for_event(event.pk)
    raise AssertionError("the simulation did not settle")


def first_pass(event: Event) -> None:
    with time_machine.travel(T0, tick=False):
        process_waitlist_for_event(event.pk)


@pytest.mark.parametrize(
    ("free", "batch_size", "k"),
    [(3, 0, 10), (3, 0, 4), (1, 0, 7), (5, 2, 9), (5, 2, 3), (4, 1, 6), (2, 5, 8)],
    ids=[
        "open-3-seats",
        "open-next-in-line",
        "one-seat",
        "batch-2",
        "batch-2-early",
        "batch-1",
        "batch-over-seats",
    ],
)
def test_the_offer_comes_exactly_at_the_eta_with_parties_of_one(free, batch_size, k):
    with time_machine.travel(T0, tick=False):
        event = active_event(10, attendees=10 - free, waitlist_batch_size=batch_size)
        members = queue_in_order(event, 12)
    first_pass(event)
    member = members[k - 1]

    eta = eta_of(event, member, T0)
    arrived = first_offer_time(event, member)

    assert eta.reason is None
    assert eta.seats_in_play == free
    assert arrived is not None
    assert arrived == eta.eta_if_all_ahead_pass


def test_before_any_pass_the_first_round_is_now():
    with time_machine.travel(T0, tick=False):
        event = active_event(10, attendees=8)
        members = queue_in_order(event, 5)

    eta = eta_of(event, members[1], T0)
    first_pass(event)

    assert eta.eta_if_all_ahead_pass == T0
    assert first_offer_time(event, members[1]) == T0


def test_holds_with_several_deadlines_give_an_upper_bound():
    """Organiser offers with their own deadlines: rounds start when the last one ends."""
    with time_machine.travel(T0, tick=False):
        event = active_event(10, attendees=7, waitlist_batch_size=0)
        members = queue_in_order(event, 9)
        give_offer(event, members[0], expires_at=T0 + timedelta(minutes=20))
        give_offer(event, members[1], expires_at=T0 + timedelta(minutes=70))
        give_offer(event, members[2], expires_at=T0 + timedelta(minutes=110))
    member = members[8]

    eta = eta_of(event, member, T0)
    arrived = first_offer_time(event, member)

    assert eta.places_ahead == 5 and eta.seats_in_play == 3
    assert eta.eta_if_all_ahead_pass is not None and arrived is not None
    assert arrived <= eta.eta_if_all_ahead_pass
    assert eta.eta_if_all_ahead_pass - arrived < 2 * WINDOW  # still a useful bound


def test_after_the_cutoff_everyone_left_gets_the_final_call():
    cutoff = T0 + timedelta(hours=5)
    with time_machine.travel(T0, tick=False):
        event = active_event(10, attendees=9, waitlist_batch_size=1, waitlist_cutoff_date=cutoff)
        members = queue_in_order(event, 10)
    first_pass(event)
    member = members[9]  # nine ahead, one seat, 2-hour rounds: only the final call reaches

    eta = eta_of(event, member, T0)
    arrived = first_offer_time(event, member)

    assert eta.eta_if_all_ahead_pass == T0 + 3 * WINDOW  # the first round after the cutoff
    assert arrived == eta.eta_if_all_ahead_pass
    assert WaitlistOffer.objects.get(
        event=event, user=member, status=Status.PENDING
    ).is_cutoff_batch


def test_when_the_event_starts_first_there_is_no_time_and_indeed_no_offer():
    start = T0 + timedelta(hours=5)
    with time_machine.travel(T0, tick=False):
        event = active_event(10, attendees=9, start=start)
        members = queue_in_order(event, 6)
    first_pass(event)
    member = members[5]

    eta = eta_of(event, member, T0)

    assert (eta.eta_if_all_ahead_pass, eta.reason) == (None, eta_rules.EVENT_STARTS_FIRST)
    assert first_offer_time(event, member) is None


def test_the_lottery_bound_counts_everyone_who_may_be_drawn_first():
    with time_machine.travel(T0, tick=False):
        event = active_event(10, attendees=8, waitlist_lottery_mode=True, waitlist_batch_size=1)
        members = queue_in_order(event, 8)
    first_pass(event)
    waiting = [m for m in members if not WaitlistOffer.objects.filter(user=m).exists()]

    for member in waiting[:3]:
        eta = eta_of(event, member, T0)
        assert eta.places_ahead == len(waiting) - 1
    bound = eta_of(event, waiting[0], T0).eta_if_all_ahead_pass
    arrived = first_offer_time(event, waiting[0])

    assert bound is not None and arrived is not None and arrived <= bound


def test_no_seat_in_play_depends_on_cancellations():
    with time_machine.travel(T0, tick=False):
        event = active_event(10, attendees=10)
        (member,) = queue_in_order(event, 1)
    first_pass(event)

    eta = eta_of(event, member, T0)

    assert (eta.seats_in_play, eta.eta_if_all_ahead_pass, eta.reason) == (
        0,
        None,
        eta_rules.DEPENDS_ON_CANCELLATIONS,
    )
    assert START > T0
