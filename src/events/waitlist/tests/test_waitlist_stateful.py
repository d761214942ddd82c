"""The waitlist as a state machine (docs/spec/quality.md "Reliability, second round").

Hypothesis drives the real services (joins with parties, leaves, declines, claims,
cancellations, capacity changes, organiser revokes and reactivations, clock moves) on
one event, and a small model of the waitlist design's rules predicts who should hold an offer.
After every step the database must agree with the model and keep the invariants:

- never oversold: the attendees' seats (1 + guests per YES) never exceed the capacity,
  and `attendee_count` is that sum;
- at most one PENDING offer per user;
- `seats_held` (what the API shows) is the sum of the live non-cutoff offers' seats;
- the positions of the members without a live offer are a permutation of 1..n;
- the members holding a live offer, and the seats each holds, are the model's.

After every step the processing pass runs, as the worker would once the step commits
(inside a test transaction nothing is dispatched). The model covers FIFO batches of
0 (open), 1 or 2 offers, both party policies and parties up to 3; the lottery, cutoff
and tiers have their own tests. Bounded examples by default; a developer runs the
nightly size with `HYPOTHESIS_WAITLIST_EXAMPLES=500 HYPOTHESIS_WAITLIST_STEPS=60`.
"""

import itertools
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import pytest
import time_machine
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from accounts.tests.factories import make_user
from common.errors import EncoreError
from events.core.selectors.event import seats_held
from events.core.services import claim_function, event_service
from events.core.services.event_manager import EventManager
from events.core.tests.factories import make_event, make_org
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.services.party_fit import fit_batch

Status = WaitlistOffer.WaitlistOfferStatus
WINDOW = timedelta(hours=1)
MAX_PARTY = 3
USERS = 7
_run = itertools.count()

EXAMPLES = int(os.environ.get("HYPOTHESIS_WAITLIST_EXAMPLES", "25"))
STEPS = int(os.environ.get("HYPOTHESIS_WAITLIST_STEPS", "30"))


@dataclass
class ModelOffer:
    seats: int
    expires_at: datetime
    status: str = Status.PENDING
    revoked_by_organiser: bool = False


@dataclass
class ModelEntry:
    user: int
    party: int
    joined_at: datetime
    rotated_at: datetime | None = None

    def order_key(self) -> tuple[bool, datetime, datetime]:
        epoch = datetime.min.replace(tzinfo=self.joined_at.tzinfo)
        return (self.rotated_at is not None, self.rotated_at or epoch, self.joined_at)


@dataclass
class Model:
    """docs/spec/waitlist-design.md as far as this machine drives it: one RSVP event, FIFO, no cutoff."""

    capacity: int
    batch_size: int
    policy: str
    attendees: dict[int, int] = field(default_factory=dict)  # user -> seats
    queue: dict[int, ModelEntry] = field(default_factory=dict)
    offers: dict[int, ModelOffer] = field(default_factory=dict)  # the latest offer per user

    def live(self, now: datetime) -> dict[int, int]:
        return {
            user: offer.seats
            for user, offer in self.offers.items()
            if offer.status == Status.PENDING and offer.expires_at > now
        }

    def held(self, now: datetime, *, excluding: int | None = None) -> int:
        return sum(seats for user, seats in self.live(now).items() if user != excluding)

    def free_for(self, user: int | None, now: datetime) -> int:
        return self.capacity - sum(self.attendees.values()) - self.held(now, excluding=user)

    def soft_skipped(self, user: int) -> bool:
        offer = self.offers.get(user)
        return offer is not None and offer.status == Status.REVOKED and offer.revoked_by_organiser

    def process(self, now: datetime) -> None:
        available = self.free_for(None, now)
        if available <= 0:
            return
        selectable = [
            entry
            for entry in sorted(self.queue.values(), key=ModelEntry.order_key)
            if not self.soft_skipped(entry.user)
            and not (entry.user in self.offers and self.offers[entry.user].status == Status.PENDING)
        ]
        chosen = fit_batch(
            [(entry.user, entry.party) for entry in selectable],
            seats=available,
            batch_size=self.batch_size or None,
            policy=self.policy,
        )
        for user in chosen:
            self.offers[user] = ModelOffer(self.queue[user].party, now + WINDOW)

    def expire(self, now: datetime) -> None:
        """The sweep: lapsed PENDING offers expire and their members rotate at `now`."""
        for user, offer in self.offers.items():
            if offer.status == Status.PENDING and offer.expires_at <= now:
                offer.status = Status.EXPIRED
                if user in self.queue:
                    self.queue[user].rotated_at = now


class WaitlistMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = time_machine.travel(timezone.now().replace(microsecond=0), tick=False)
        self.traveller = self.clock.start()
        self.model: Model | None = None

    def teardown(self) -> None:
        self.clock.stop()

    # -- set-up ----------------------------------------------------------------------
    @initialize(
        capacity=st.integers(2, 6),
        attending=st.integers(0, 2),
        batch_size=st.sampled_from([0, 1, 2]),
        policy=st.sampled_from([Event.PartyPolicy.STRICT, Event.PartyPolicy.FILL]),
    )
    def open_event(self, capacity: int, attending: int, batch_size: int, policy: str) -> None:
        run = next(_run)
        self.event = make_event(
            make_org(),
            max_attendees=capacity,
            start=timezone.now() + timedelta(days=60),
            waitlist_open=True,
            waitlist_time_window=WINDOW,
            waitlist_batch_size=batch_size,
            waitlist_max_party_size=MAX_PARTY,
            waitlist_party_policy=policy,
        )
        self.people = [make_user(f"sm{run}-{n}@example.com") for n in range(USERS)]
        self.model = Model(capacity, batch_size, policy)
        for n in range(min(attending, capacity)):
            self._attend(n, guests=0)
            self.model.attendees[n] = 1

    # -- helpers -----------------------------------------------------------------------
    @property
    def now(self) -> datetime:
        return timezone.now()

    def _tick(self) -> None:
        """One second between steps: joins and rotations get distinct, ordered times."""
        self.traveller.shift(timedelta(seconds=1))

    def _user(self, n: int):
        return self.people[n]

    def _attend(self, n: int, *, guests: int) -> None:
        EventManager(self._user(n), self._fresh()).rsvp(EventRSVP.Status.YES, guests=guests)

    def _fresh(self) -> Event:
        return Event.objects.get(pk=self.event.pk)

    def _after_step(self) -> None:
        """What the worker does once the step commits: one processing pass."""
        waitlist_service.process_waitlist_for_event(self.event.pk)
        assert self.model is not None
        self.model.process(self.now)

    def _offer_of(self, n: int) -> WaitlistOffer | None:
        return (
            WaitlistOffer.objects.filter(event=self.event, user=self._user(n))
            .order_by("-created_at")
            .first()
        )

    # -- rules ---------------------------------------------------------------------------
    @rule(n=st.integers(0, USERS - 1), party=st.integers(1, MAX_PARTY))
    def join(self, n: int, party: int) -> None:
        model = self.model
        assert model is not None
        self._tick()
        may_join = n not in model.attendees and n not in model.queue
        full_for_them = model.free_for(n, self.now) < party
        try:
            waitlist_service.join_waitlist(self._user(n), self._fresh(), party_size=party)
        except EncoreError:
            assert not (may_join and full_for_them), "a full event refused a new member"
            return
        if n in model.queue:
            return  # already queued: the existing entry, nothing changes
        assert may_join and full_for_them, "joined although a seat was free or already in"
        model.queue[n] = ModelEntry(n, party, self.now)
        self._after_step()

    @rule(n=st.integers(0, USERS - 1))
    def leave(self, n: int) -> None:
        model = self.model
        assert model is not None
        self._tick()
        waitlist_service.leave_waitlist(self._user(n), self._fresh())
        if n in model.queue:
            del model.queue[n]
            offer = model.offers.get(n)
            if offer is not None and offer.status == Status.PENDING:
                offer.status = Status.EXPIRED
        self._after_step()

    @rule(n=st.integers(0, USERS - 1))
    def decline(self, n: int) -> None:
        model = self.model
        assert model is not None
        self._tick()
        holds = n in model.live(self.now)
        try:
            waitlist_service.decline_offer(self._user(n), self._fresh())
        except EncoreError:
            assert not holds, "the holder of a live offer could not decline it"
            return
        assert holds, "declined without a live offer"
        model.offers[n].status = Status.EXPIRED
        model.queue[n].rotated_at = self.now
        self._after_step()

    @rule(n=st.integers(0, USERS - 1))
    def claim(self, n: int) -> None:
        model = self.model
        assert model is not None
        self._tick()
        live = model.live(self.now)
        if n not in live:
            return
        seats = live[n]
        fits = model.free_for(n, self.now) >= seats
        try:
            self._attend(n, guests=seats - 1)
        except EncoreError:
            assert not fits, "a live offer that fits could not be claimed"
            return
        assert fits, "a claim beyond the capacity went through"
        model.attendees[n] = seats
        model.offers[n].status = Status.CLAIMED
        del model.queue[n]
        self._after_step()

    @rule(n=st.integers(0, USERS - 1))
    def cancel(self, n: int) -> None:
        model = self.model
        assert model is not None
        if n not in model.attendees:
            return
        self._tick()
        EventManager(self._user(n), self._fresh()).rsvp(EventRSVP.Status.NO)
        del model.attendees[n]
        self._after_step()

    @rule(delta=st.integers(-2, 3))
    def change_capacity(self, delta: int) -> None:
        model = self.model
        assert model is not None
        new = max(model.capacity + delta, sum(model.attendees.values()), 1)
        self._tick()
        event_service.update_event(self._fresh(), {"max_attendees": new})
        model.capacity = new
        self._after_step()

    @rule(n=st.integers(0, USERS - 1))
    def organiser_revokes(self, n: int) -> None:
        model = self.model
        assert model is not None
        if n not in model.live(self.now):
            return
        self._tick()
        offer = self._offer_of(n)
        assert offer is not None
        waitlist_service.revoke_offer(self.event.pk, offer.pk)
        model.offers[n].status = Status.REVOKED
        model.offers[n].revoked_by_organiser = True
        self._after_step()

    @rule(n=st.integers(0, USERS - 1))
    def organiser_reactivates(self, n: int) -> None:
        model = self.model
        assert model is not None
        offer = model.offers.get(n)
        if offer is None or offer.status not in (Status.REVOKED, Status.EXPIRED):
            return
        self._tick()
        row = self._offer_of(n)
        assert row is not None
        fits = n in model.queue and model.free_for(None, self.now) >= offer.seats
        try:
            waitlist_service.reactivate_admin_offer(self.event.pk, row.pk)
        except EncoreError:
            assert not fits, "a reactivation that fits was refused"
            return
        assert fits, "a reactivation beyond the capacity went through"
        offer.status = Status.PENDING
        offer.revoked_by_organiser = False
        offer.expires_at = self.now + WINDOW
        self._after_step()

    @rule(minutes=st.integers(1, 150))
    def clock_moves(self, minutes: int) -> None:
        model = self.model
        assert model is not None
        self.traveller.shift(timedelta(minutes=minutes))
        waitlist_service.expire_waitlist_offers(self.now)
        model.expire(self.now)
        self._after_step()

    # -- invariants ------------------------------------------------------------------------
    @invariant()
    def never_oversold(self) -> None:
        if self.model is None:
            return
        event = self._fresh()
        seats = sum(r.seats for r in EventRSVP.objects.filter(event=event))
        assert event.attendee_count == seats
        assert seats <= event.max_attendees
        assert seats == sum(self.model.attendees.values())

    @invariant()
    def one_pending_offer_per_user(self) -> None:
        if self.model is None:
            return
        pending = WaitlistOffer.objects.filter(event=self.event, status=Status.PENDING)
        users = list(pending.values_list("user_id", flat=True))
        assert len(users) == len(set(users))

    @invariant()
    def seats_held_is_the_sum_of_live_offers(self) -> None:
        if self.model is None:
            return
        live = waitlist_selectors.held_offers(self.event.pk, self.now)
        assert seats_held(self._fresh()) == sum(o.seats for o in live)

    @invariant()
    def positions_are_a_permutation(self) -> None:
        if self.model is None:
            return
        positions = [
            waitlist_selectors.queue_position(self.event.pk, entry.user_id, self.now)
            for entry in EventWaitList.objects.filter(event=self.event)
        ]
        waiting = sorted(p for p in positions if p is not None)
        assert waiting == list(range(1, len(waiting) + 1))

    @invariant()
    def holders_are_the_models(self) -> None:
        if self.model is None:
            return
        index = {user.pk: n for n, user in enumerate(self.people)}
        actual = {
            index[offer.user_id]: offer.seats
            for offer in waitlist_selectors.held_offers(self.event.pk, self.now)
        }
        assert actual == self.model.live(self.now)


MACHINE_SETTINGS = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.django_db
def test_the_waitlist_keeps_its_invariants_under_any_sequence_of_steps() -> None:
    """Inside the test's transaction: every claim takes the Python path."""
    run_state_machine_as_test(WaitlistMachine, settings=MACHINE_SETTINGS)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_invariants_hold_through_the_sql_claim(sent_tasks, monkeypatch) -> None:
    """No transaction around the steps, so a new YES is claimed by the SQL function
    (`claim_function.claim_new_rsvp`, docs/spec/quality.md "Reliability"): the same
    model and invariants as above hold for the rule written in SQL. Tasks are recorded,
    not run, so the processing passes are the machine's own, as above."""
    claimed_in_sql: list[bool] = []

    def counting(*args, **kwargs):
        rsvp = real(*args, **kwargs)
        claimed_in_sql.append(rsvp is not None)
        return rsvp

    real = claim_function.claim_new_rsvp
    monkeypatch.setattr(claim_function, "claim_new_rsvp", counting)

    run_state_machine_as_test(WaitlistMachine, settings=MACHINE_SETTINGS)

    assert any(claimed_in_sql), "no claim went through the SQL function"


def test_the_model_offers_a_freed_seat_to_the_head_of_the_queue() -> None:
    """The model itself (no database): it is what the machine trusts."""
    now = datetime(2026, 12, 1, 12, tzinfo=timezone.get_current_timezone())
    model = Model(capacity=2, batch_size=0, policy="strict", attendees={9: 2})
    model.queue = {1: ModelEntry(1, 2, now), 2: ModelEntry(2, 1, now + timedelta(seconds=1))}
    model.process(now)
    assert model.live(now) == {}
    del model.attendees[9]
    model.process(now)
    assert model.live(now) == {1: 2}
    model.expire(now + WINDOW)
    model.process(now + WINDOW)
    assert model.live(now + WINDOW) == {2: 1}  # the head rotated; strict: 1 seat left idles
