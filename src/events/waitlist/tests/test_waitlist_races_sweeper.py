"""The waitlist under contention, on PostgreSQL row locks (docs/spec/quality.md "Reliability"): the
sweeper racing claims on the same offers, and racing members leaving the queue, never
deadlocks and leaves each offer claimed or expired. Racers run through the harness of
waitlist_races_support.
"""

import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.db.models import Q
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps
from events.models import EventRSVP, EventWaitList, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_races_support import (
    Status,
    _rsvp_yes,
    dispatched,
    fresh,
    offer,
    queue,
    race,
    unexpected,
    waitlist_event,
)

__all__ = ["dispatched"]  # fixtures, imported for pytest


pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


# -- 4. the sweeper racing claims on the same offers -------------------------------------------
def test_sweeper_racing_claims_leaves_each_offer_claimed_or_expired(dispatched):
    """20 offers lapse the instant the sweeper looks (its `now` is past their deadline),
    while their holders, whose clocks still see them live, register. The sweeper waits
    for the first claims to land, so it meets the rest mid-flight."""
    event = waitlist_event(100)
    fill_with_rsvps(event, 50)
    holders = [make_user() for _ in range(20)]
    queue(event, holders)
    deadline = timezone.now() + timedelta(seconds=30)
    offers = [offer(event, p, expires_in=timedelta(0)) for p in holders]
    WaitlistOffer.objects.filter(pk__in=[o.pk for o in offers]).update(expires_at=deadline)
    sweep_at = deadline + timedelta(microseconds=1)

    def sweep_mid_flight() -> waitlist_service.ExpirySweep:
        """Sweep once a few claims have landed, so the others are in flight around it."""
        claimed = WaitlistOffer.objects.filter(event=event, status=Status.CLAIMED)
        give_up = time.monotonic() + 10
        while claimed.count() < 5 and time.monotonic() < give_up:
            time.sleep(0.002)
        return waitlist_service.expire_waitlist_offers(now=sweep_at)

    calls: list[Callable[[], Any]] = [sweep_mid_flight]
    calls += [partial(_rsvp_yes, p, event.pk) for p in holders]

    outcomes = race(calls)

    assert unexpected(outcomes, set()) == [], outcomes
    sweep = outcomes[0].value
    statuses = Counter(WaitlistOffer.objects.filter(event=event).values_list("status", flat=True))
    assert set(statuses) <= {Status.CLAIMED, Status.EXPIRED}, statuses
    assert statuses[Status.EXPIRED] == sweep.expired
    assert statuses[Status.CLAIMED] + statuses[Status.EXPIRED] == len(holders)
    assert statuses[Status.CLAIMED] >= 5
    final = fresh(event)
    yes = EventRSVP.objects.filter(event=event, status=EventRSVP.Status.YES).count()
    assert final.attendee_count == yes == 50 + len(holders)  # a lapsed holder still had room
    assert not EventWaitList.objects.filter(event=event).exists()
    lapsed = WaitlistOffer.objects.filter(event=event, status=Status.EXPIRED)
    assert not lapsed.filter(~Q(updated_at=sweep_at) | Q(claimed_at__isnull=False)).exists()
    claimed = WaitlistOffer.objects.filter(event=event, status=Status.CLAIMED)
    assert not claimed.filter(claimed_at__isnull=True).exists()


# -- 5. the sweeper racing members leaving the queue ---------------------------------------------
@pytest.mark.parametrize("round_", range(3))
def test_sweeper_racing_departures_never_deadlocks(round_, dispatched):
    """30 members whose offers lapsed (the sweep has not reached them) leave the queue
    as the sweep runs: 10 leave, 10 are removed by staff, 10 register. The sweep writes
    offer rows, then queue rows; every departure writes the offer first too, so nothing
    deadlocks and each offer ends EXPIRED (swept, or by the leave) or REVOKED (its entry
    went first)."""
    event = waitlist_event(100)
    fill_with_rsvps(event, 50)
    members = [make_user() for _ in range(30)]
    queue(event, members)
    for member in members:
        offer(event, member, expires_in=-timedelta(minutes=1))
    entries = {entry.user_id: entry for entry in EventWaitList.objects.filter(event=event)}

    calls: list[Callable[[], Any]] = [waitlist_service.expire_waitlist_offers]
    calls += [partial(waitlist_service.leave_waitlist, m, event) for m in members[:10]]
    calls += [partial(waitlist_service.remove_entry, entries[m.pk]) for m in members[10:20]]
    calls += [partial(_rsvp_yes, m, event.pk) for m in members[20:]]
    outcomes = race(calls)

    assert unexpected(outcomes, set()) == [], outcomes
    assert not EventWaitList.objects.filter(event=event).exists()
    statuses = set(WaitlistOffer.objects.filter(event=event).values_list("status", flat=True))
    assert statuses <= {Status.EXPIRED, Status.REVOKED}, statuses
    assert fresh(event).attendee_count == 60
