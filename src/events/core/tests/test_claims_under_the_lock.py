"""What a claim does while it holds the Event lock (issue 12 item 7, ADR 0022).

A win runs a fixed set of statements between the lock and the end of its transaction;
a refusal runs only the lock and the one locked check, leaves the transaction, and reads
the details of its answer (queue position, next batch, the user's zone and own offer)
after the lock is released, so the next claimer is not kept waiting for them. The
answer itself is the one the user always got (the refusal tests elsewhere are unchanged).
"""

import threading
import uuid
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.db import connection, transaction
from django.db.models import IntegerField, UUIDField
from django.db.utils import OperationalError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from common.compiled_query import CompiledWrite, Param, expanded
from events.core.eligibility import capacity
from events.core.eligibility.refusals import EligibilityRefused
from events.core.services.event_manager import EventManager
from events.core.tests.factories import fill_with_rsvps
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer
from events.waitlist.tests.waitlist_races_support import offer, queue, race, waitlist_event

Status = WaitlistOffer.WaitlistOfferStatus
YES = EventRSVP.Status.YES


def _full_event_with_a_queued_holder(**fields: Any) -> tuple[Event, User]:
    """Capacity 3, 2 attendees, one seat held by another member's live offer; the caller
    is queued behind them with a live cutoff offer (it reserves nothing)."""
    event = waitlist_event(3, **fields)
    fill_with_rsvps(event, 2)
    holder, caller = make_user(), make_user()
    queue(event, [holder, caller])
    offer(event, holder, expires_in=timedelta(hours=1))
    offer(event, caller, expires_in=timedelta(hours=3), is_cutoff_batch=True)
    return event, caller


def _sql(queries: list[dict[str, str]]) -> list[str]:
    """The statements as the server runs them (prepared ones expanded)."""
    return [expanded(q["sql"]) for q in queries]


def _index(sql: list[str], predicate: Any) -> int:
    return next(i for i, statement in enumerate(sql) if predicate(statement))


def _is_lock(statement: str) -> bool:
    """The claim's lock (`locks.lock_event_row`): FOR UPDATE on PostgreSQL; SQLite, whose
    write transactions are exclusive, gets the same statement without it."""
    return statement.startswith('SELECT "events_event"."id" AS "id" FROM "events_event"')


def _ends_transaction(statement: str) -> bool:
    return statement.startswith(("ROLLBACK", "RELEASE SAVEPOINT", "COMMIT"))


# -- the win --------------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_winning_claim_runs_six_statements_under_the_lock_whatever_the_queue():
    """lock, the locked check, the RSVP, attendee_count, the offer CLAIMED, the queue
    entry gone; then the transaction ends. The same with 3 or 30 others queued."""
    for others in (3, 30):
        event = waitlist_event(10 + others)
        queue(event, [make_user() for _ in range(others)])
        claimer = make_user()
        queue(event, [claimer])
        own = offer(event, claimer, expires_in=timedelta(hours=1))

        with CaptureQueriesContext(connection) as captured:
            EventManager(claimer, event).rsvp(YES)

        sql = _sql(captured.captured_queries)
        locked = sql[_index(sql, _is_lock) : _index(sql, _ends_transaction)]
        assert [s.split()[0] for s in locked] == [
            "SELECT",
            "SELECT",
            "INSERT",
            "UPDATE",
            "UPDATE",
            "DELETE",
        ], locked
        own.refresh_from_db()
        assert own.status == Status.CLAIMED
        assert not EventWaitList.objects.filter(event=event, user=claimer).exists()
        assert Event.objects.get(pk=event.pk).attendee_count == 1


@pytest.mark.django_db
def test_a_claim_without_offer_or_queue_entry_writes_only_the_rsvp_and_the_count():
    event = waitlist_event(10)
    newcomer = make_user()
    manager = EventManager(newcomer, event)
    manager.check_eligibility(seats=1)  # warm: the gate's queries are not what is counted

    with CaptureQueriesContext(connection) as captured:
        manager._write_rsvp(YES)

    sql = _sql(captured.captured_queries)
    locked = sql[_index(sql, _is_lock) : _index(sql, _ends_transaction)]
    assert [s.split()[0] for s in locked] == ["SELECT", "SELECT", "INSERT", "UPDATE"]
    assert EventRSVP.objects.get(event=event, user=newcomer).status == YES


# -- the refusal ----------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_refusal_holds_the_lock_for_two_statements_and_details_its_answer_after():
    event, caller = _full_event_with_a_queued_holder()

    with CaptureQueriesContext(connection) as captured, pytest.raises(EligibilityRefused) as no:
        EventManager(caller, event).rsvp(YES, by_staff=True)  # staff: no gate first

    sql = _sql(captured.captured_queries)
    lock, released = _index(sql, _is_lock), _index(sql, _ends_transaction)
    assert released - lock == 2, sql[lock:released]  # the lock and the locked check
    # Position, next batch, zone and own offer: one statement, after the release.
    details = _index(sql, lambda s: s.startswith('SELECT "accounts_user"."timezone"'))
    assert details > released, "the details were read under the lock"
    assert len(sql) == details + 1
    # The answer is the detailed one: position, next batch, the caller's own live offer.
    refusal = no.value.eligibility
    assert no.value.status_code == 409
    assert refusal.reason_code == "on_waitlist_waiting_for_batch"
    assert refusal.next_step == "wait_for_open_spot"
    assert refusal.pending_offers_count == 1
    assert refusal.next_batch_at is not None
    assert refusal.active_offer_expires_at is not None
    assert not EventRSVP.objects.filter(event=event, user=caller).exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_another_claimer_can_take_the_lock_while_a_refusal_is_being_detailed(monkeypatch):
    """Seen from a second connection: while the refused claimer reads the details of its
    answer, the Event row is free (FOR UPDATE NOWAIT succeeds)."""
    event, caller = _full_event_with_a_queued_holder()
    seen: list[str] = []
    real_details = capacity.refusal_details

    def try_the_lock() -> None:
        try:
            with transaction.atomic():
                Event.objects.select_for_update(nowait=True).filter(pk=event.pk).exists()
            seen.append("free")
        except OperationalError:
            seen.append("held")
        finally:
            connection.close()

    def details_while_probing(*args: Any) -> Any:
        probe = threading.Thread(target=try_the_lock)
        probe.start()
        probe.join(timeout=30)
        return real_details(*args)

    monkeypatch.setattr(capacity, "refusal_details", details_while_probing)

    with pytest.raises(EligibilityRefused) as no:
        EventManager(caller, event).rsvp(YES, by_staff=True)

    assert seen == ["free"]
    assert no.value.code == "on_waitlist_waiting_for_batch"


# -- the race -------------------------------------------------------------------------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_sixty_cutoff_holders_for_ten_seats_exactly_ten_win_and_the_rest_hear_why():
    """The e1 race as a test: every racer holds a cutoff offer (nothing reserved), 10
    seats are free. Exactly 10 win; each of the 50 others gets the detailed refusal."""
    event = waitlist_event(20, waitlist_cutoff_date=timezone.now() - timedelta(hours=1))
    fill_with_rsvps(event, 10)
    racers = [make_user() for _ in range(60)]
    queue(event, racers)
    batch = uuid.uuid4()
    for person in racers:
        offer(event, person, expires_in=timedelta(days=1), is_cutoff_batch=True, batch_id=batch)

    def claim(person: User) -> str:
        fresh = Event.objects.select_related("organization", "venue").get(pk=event.pk)
        try:
            EventManager(person, fresh).rsvp(YES)
        except EligibilityRefused as refused:
            assert refused.eligibility.active_offer_expires_at is not None, "details missing"
            return str(refused.code)
        return "won"

    outcomes = race([partial(claim, person) for person in racers])

    values = [o.value for o in outcomes]
    assert [o for o in outcomes if o.error is not None] == []
    assert values.count("won") == 10
    assert set(values) == {"won", "event_is_full"}
    assert Event.objects.get(pk=event.pk).attendee_count == 20
    winners = {p.pk for p, v in zip(racers, values, strict=True) if v == "won"}
    claimed = WaitlistOffer.objects.filter(event=event, status=Status.CLAIMED)
    assert set(claimed.values_list("user_id", flat=True)) == winners
    assert set(EventWaitList.objects.filter(event=event).values_list("user_id", flat=True)) == (
        {p.pk for p in racers} - winners
    )


# -- the compiled write ------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_compiled_write_binds_fresh_values_and_counts_rows():
    event = waitlist_event(10)
    people = [make_user() for _ in range(3)]
    queue(event, people)
    bump = CompiledWrite(
        lambda: (
            Event.objects.filter(pk=Param("event_id", UUIDField())),
            {"attendee_count": Param("count", IntegerField())},
        )
    )
    drop = CompiledWrite(
        lambda: (EventWaitList.objects.filter(user_id=Param("user_id", UUIDField())), None)
    )

    assert bump.execute(event_id=event.pk, count=7) == 1
    assert bump.execute(event_id=uuid.uuid4(), count=8) == 0
    assert drop.execute(user_id=people[0].pk) == 1
    assert drop.execute(user_id=people[1].pk) == 1

    assert Event.objects.get(pk=event.pk).attendee_count == 7
    assert set(EventWaitList.objects.values_list("user_id", flat=True)) == {people[2].pk}
