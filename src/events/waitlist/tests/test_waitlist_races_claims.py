"""The waitlist under contention, on PostgreSQL row locks (docs/spec/quality.md "Reliability"):
concurrent processing passes create one batch, and claimers over RSVP and checkout (offer
holders with reserved seats, cutoff offers, outsiders) never oversell. Racers run through
the harness of waitlist_races_support.
"""

import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.service.tokens import issue_token_pair
from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, fill_with_tickets
from events.models import Event, EventRSVP, EventWaitList, Ticket, WaitlistOffer
from events.ticketing.tests.ticket_helpers import assert_counters_true, free_tier
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_races_support import (
    MAX_RETRIES,
    Outcome,
    Status,
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


# -- 1. concurrent processing passes ------------------------------------------------------------
@pytest.mark.parametrize("lottery", [False, True], ids=["fifo", "lottery"])
def test_ten_concurrent_passes_create_exactly_one_batch(lottery, dispatched):
    event = waitlist_event(10, waitlist_batch_size=8, waitlist_lottery_mode=lottery)
    fill_with_rsvps(event, 5)
    members = [make_user() for _ in range(20)]
    queue(event, members)

    outcomes = race([lambda: waitlist_service.process_waitlist_for_event(event.pk)] * 10)

    assert unexpected(outcomes, set()) == []
    assert Counter(o.value.status for o in outcomes) == {"ok": 1, "no_spots": 9}
    offers = WaitlistOffer.objects.filter(event=event)
    assert offers.count() == 5  # min(batch 8, 10 - 5 attendees)
    assert offers.values("batch_id").distinct().count() == 1
    assert len([name for name, _ in dispatched if "notification" in name]) == 5
    if not lottery:
        assert set(offers.values_list("user_id", flat=True)) == {m.pk for m in members[:5]}


# -- 2. claims: reserved seats, cutoff offers, outsiders ----------------------------------------
@dataclass
class ClaimRace:
    """Capacity 40, 25 attendees: 10 seats reserved by live offers, 5 free for all.

    60 racers: the 10 offer holders, 20 holders of cutoff offers (the cutoff has passed;
    those reserve nothing) and 30 outsiders. Every holder of a reserved seat must get
    in; the 5 free seats go to exactly 5 of the other 50; nobody else.
    """

    event: Event
    reserved: list[User]
    cutoff: list[User]
    outsiders: list[User]

    CAPACITY = 40
    ATTENDEES = 25

    @classmethod
    def build(cls, *, ticketed: bool) -> "ClaimRace":
        event = waitlist_event(
            cls.CAPACITY,
            requires_ticket=ticketed,
            waitlist_cutoff_date=timezone.now() - timedelta(hours=1),
        )
        reserved = [make_user() for _ in range(10)]
        cutoff = [make_user() for _ in range(20)]
        outsiders = [make_user() for _ in range(30)]
        queue(event, reserved + cutoff)
        for person in reserved:
            offer(event, person, expires_in=timedelta(hours=1))
        batch = uuid.uuid4()
        for person in cutoff:
            offer(event, person, expires_in=timedelta(days=1), is_cutoff_batch=True, batch_id=batch)
        return cls(event, reserved, cutoff, outsiders)

    @property
    def racers(self) -> list[User]:
        return self.reserved + self.cutoff + self.outsiders

    def winners(self, outcomes: list[Outcome], ok: int) -> set[uuid.UUID]:
        return {
            person.pk
            for person, outcome in zip(self.racers, outcomes, strict=True)
            if outcome.value == ok
        }

    def assert_seats_went_right(self, outcomes: list[Outcome], ok: int, attendees: int) -> None:
        statuses = Counter(o.value for o in outcomes if o.error is None)
        assert unexpected(outcomes, set()) == [], outcomes
        assert statuses == {ok: 15, 409: 45}, statuses
        winners = self.winners(outcomes, ok)
        assert {p.pk for p in self.reserved} <= winners, "a reserved seat was lost"
        assert len(winners - {p.pk for p in self.reserved}) == 5, "took a reserved seat"
        event = fresh(self.event)
        assert event.attendee_count == attendees == self.CAPACITY
        assert held(event) == 0
        claimed = set(
            WaitlistOffer.objects.filter(event=event, status=Status.CLAIMED).values_list(
                "user_id", flat=True
            )
        )
        assert claimed == winners & {p.pk for p in self.reserved + self.cutoff}
        assert not EventWaitList.objects.filter(event=event, user_id__in=winners).exists()


def _http_attempt(client: Client, path: str, body: str | None) -> int:
    """One request, retrying 503 busy; returns the final status code."""
    for attempt in range(MAX_RETRIES):
        if body is None:
            response = client.post(path, content_type="application/json")
        else:
            response = client.post(path, data=body, content_type="application/json")
        if response.status_code != 503:
            if response.status_code == 409:
                assert response.json()["code"] == "event_is_full", response.json()
            return response.status_code
        time.sleep(0.05 * (attempt + 1))
    return 503


def _client(person: User) -> Client:
    return Client(headers={"Authorization": f"Bearer {issue_token_pair(person).access}"})


def test_sixty_claimers_over_rsvp_never_oversell_and_keep_reserved_seats():
    setup = ClaimRace.build(ticketed=False)
    fill_with_rsvps(setup.event, ClaimRace.ATTENDEES)
    path = f"/api/events/{setup.event.pk}/rsvp/yes"
    clients = [_client(person) for person in setup.racers]

    outcomes = race([partial(_http_attempt, c, path, None) for c in clients])

    yes = EventRSVP.objects.filter(event=setup.event, status=EventRSVP.Status.YES).count()
    setup.assert_seats_went_right(outcomes, 200, yes)


def test_sixty_claimers_over_checkout_never_oversell_and_keep_reserved_seats():
    setup = ClaimRace.build(ticketed=True)
    tier = free_tier(setup.event)  # unlimited: the event's capacity is the binding limit
    fill_with_tickets(setup.event, tier, ClaimRace.ATTENDEES)
    path = f"/api/events/{setup.event.pk}/checkout"
    body = json.dumps({"items": [{"tier_id": str(tier.pk), "count": 1}]})
    clients = [_client(person) for person in setup.racers]

    outcomes = race([partial(_http_attempt, c, path, body) for c in clients])

    live = Ticket.objects.filter(event=setup.event).exclude(status=Ticket.Status.CANCELLED)
    setup.assert_seats_went_right(outcomes, 201, live.count())
    assert_counters_true(setup.event)
