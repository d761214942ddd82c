"""The waitlist under contention, on PostgreSQL row locks (docs/spec/quality.md "Reliability"): admin
reactivations racing claims and each other neither deadlock nor oversell, and leave one
pending offer per user. Racers run through the harness of waitlist_races_support.
"""

import uuid
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any

import pytest

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps
from events.models import Event, EventRSVP, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_races_support import (
    Status,
    _rsvp_yes,
    dispatched,
    fresh,
    held,
    offer,
    queue,
    race,
    unexpected,
    waitlist_event,
)

__all__ = ["dispatched"]  # fixtures, imported for pytest


pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def pending_per_user(event: Event) -> Counter[uuid.UUID]:
    return Counter(
        WaitlistOffer.objects.filter(event=event, status=Status.PENDING).values_list(
            "user_id", flat=True
        )
    )


def _reactivate(event_id: uuid.UUID, offer_id: uuid.UUID) -> str:
    return waitlist_service.reactivate_admin_offer(event_id, offer_id).status


def test_reactivations_racing_claims_neither_deadlock_nor_oversell(dispatched):
    """Capacity 20, 14 attendees, 3 live offers: 3 seats free. Ten organiser reactivations
    of lapsed offers race the 3 holders claiming and 20 outsiders registering."""
    event = waitlist_event(20)
    fill_with_rsvps(event, 14)
    holders = [make_user() for _ in range(3)]
    lapsed = [make_user() for _ in range(10)]
    outsiders = [make_user() for _ in range(20)]
    queue(event, holders + lapsed)
    for person in holders:
        offer(event, person, expires_in=timedelta(hours=1))
    expired = [
        offer(event, person, expires_in=-timedelta(hours=1), status=Status.EXPIRED)
        for person in lapsed
    ]
    calls: list[Callable[[], Any]] = [partial(_reactivate, event.pk, o.pk) for o in expired]
    calls += [partial(_rsvp_yes, p, event.pk) for p in holders + outsiders]

    outcomes = race(calls)

    refusals = {"OfferWouldOvercommit", "EligibilityRefused"}
    assert unexpected(outcomes, refusals) == [], outcomes
    reactivated = [o for o in outcomes[:10] if o.error is None]
    registered = [o for o in outcomes[10:] if o.error is None]
    assert all(o.error is None for o in outcomes[10:13]), "a holder lost the reserved seat"
    final = fresh(event)
    yes = EventRSVP.objects.filter(event=event, status=EventRSVP.Status.YES).count()
    assert final.attendee_count == yes == 14 + len(registered)
    assert final.attendee_count + held(final) <= final.effective_capacity
    assert held(final) == len(reactivated)
    assert len(registered) - 3 + len(reactivated) == 3  # the 3 free seats, each used once


def test_reactivating_two_old_offers_of_one_user_at_once_leaves_one_pending(dispatched):
    """The partial unique index backs the check: never two PENDING offers for one user."""
    event = waitlist_event(50)
    people = [make_user() for _ in range(10)]
    queue(event, people)
    pairs = [
        (
            offer(event, p, expires_in=-timedelta(hours=2), status=Status.EXPIRED),
            offer(
                event,
                p,
                expires_in=-timedelta(hours=1),
                status=Status.REVOKED,
                revoked_reason=WaitlistOffer.RevokedReason.ORGANIZER,
            ),
        )
        for p in people
    ]
    # Each user's two offers, and each offer twice: 40 racers.
    calls = [partial(_reactivate, event.pk, o.pk) for pair in pairs for o in pair for _ in range(2)]

    outcomes = race(calls)

    assert unexpected(outcomes, {"PendingOfferExists", "NotFound"}) == [], outcomes
    assert sum(o.error is None for o in outcomes) == len(people)
    assert pending_per_user(event) == Counter({p.pk: 1 for p in people})
