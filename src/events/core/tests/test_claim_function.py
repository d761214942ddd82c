"""The hot claim as one statement on PostgreSQL (`claim_function`, ADR 0022).

Outside a transaction (as the API calls it) a new RSVP YES is registered by one call of
`encore_claim_rsvp`: the lock, the capacity rule and the writes in one statement, so the
lock is held only while the database does the arithmetic. What the user sees is what the
Python path gives: the same wins, the same detailed refusals, the same rows.
"""

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from common.compiled_query import expanded
from common.tests.racing import a_backend_waits_on_a_lock
from events.core.eligibility.refusals import EligibilityRefused
from events.core.services import claim_function
from events.core.services.event_manager import EventManager
from events.core.services.locks import lock_event_row
from events.core.tests.factories import fill_with_rsvps
from events.models import Event, EventRSVP, EventWaitList, Invitation, Venue, WaitlistOffer
from events.waitlist.tests.waitlist_races_support import offer, queue, waitlist_event

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

Status = WaitlistOffer.WaitlistOfferStatus
YES = EventRSVP.Status.YES
WRITES = ("INSERT", "UPDATE", "DELETE")


def _fresh(event: Event) -> Event:
    return Event.objects.select_related("organization", "venue").get(pk=event.pk)


def _claim_sql(captured: CaptureQueriesContext) -> list[str]:
    return [expanded(q["sql"]) for q in captured.captured_queries]


def _written_table(statement: str) -> str | None:
    """The table an INSERT INTO / UPDATE / DELETE FROM writes, else None."""
    words = statement.split()
    if words[0] == "UPDATE":
        return words[1]
    if words[0] in ("INSERT", "DELETE"):
        return words[2]
    return None


def test_a_new_rsvp_claim_is_one_statement_and_does_everything_the_python_claim_did():
    event = waitlist_event(5)
    claimer = make_user()
    queue(event, [make_user(), claimer])
    own = offer(event, claimer, expires_in=timedelta(hours=1))
    manager = EventManager(claimer, _fresh(event))

    with CaptureQueriesContext(connection) as captured:
        rsvp = manager.rsvp(YES)

    sql = _claim_sql(captured)
    claims = [s for s in sql if "encore_claim_rsvp" in s]
    assert len(claims) == 1
    call = sql.index(claims[0])
    # Before it only the gates read; after it only the after-commit work runs (queue
    # sample, notices, the nudge): nothing else writes the claim's rows or locks the event.
    assert [s for s in sql[:call] if s.split()[0] in WRITES or "FOR UPDATE" in s] == []
    claim_tables = {'"events_eventrsvp"', '"events_eventwaitlist"', '"events_event"'}
    assert [s for s in sql[call + 1 :] if _written_table(s) in claim_tables] == []
    assert EventRSVP.objects.get(pk=rsvp.pk).status == YES
    own.refresh_from_db()
    assert own.status == Status.CLAIMED and own.claimed_at is not None
    assert not EventWaitList.objects.filter(event=event, user=claimer).exists()
    assert Event.objects.get(pk=event.pk).attendee_count == 1


def _commit_mode_after_calling(event: Event, person: Any) -> tuple[str, str]:
    """(outcome, synchronous_commit) inside one transaction that calls the function."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT outcome FROM encore_claim_rsvp(%s, %s, gen_random_uuid(), 0, now())",
            [event.pk, person.pk],
        )
        (outcome,) = cursor.fetchone()
        cursor.execute("SELECT current_setting('synchronous_commit')")
        (mode,) = cursor.fetchone()
        transaction.set_rollback(True)
    return outcome, mode


def test_a_win_does_not_wait_for_its_flush_under_the_lock_but_a_refusal_is_unchanged():
    """ADR 0029: the winning transaction commits asynchronously, so the Event lock goes
    when the commit record is written; nothing else changes how a transaction commits."""
    event = waitlist_event(1)
    assert _commit_mode_after_calling(event, make_user()) == ("won", "off")
    fill_with_rsvps(event, 1)
    assert _commit_mode_after_calling(event, make_user()) == ("refused", "on")
    with connection.cursor() as cursor:  # SET LOCAL: gone with the transaction
        cursor.execute("SELECT current_setting('synchronous_commit')")
        assert cursor.fetchone() == ("on",)


def test_the_winner_is_answered_only_once_its_claim_is_on_disk():
    """Right after the claim's statement returns, its commit record is in the WAL but
    (committed asynchronously) need not be on disk; the very next statement is the
    durable one, and once it returns the WAL is flushed past the claim, before any
    after-commit work (ADR 0029)."""
    event = waitlist_event(5)
    claimer = make_user()
    claim_end: list[str] = []
    after: list[tuple[str, bool]] = []  # (statement, WAL on disk past the claim then)

    def watch_the_flush(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        result = execute(sql, params, many, context)
        raw = connection.connection  # not captured, no transaction id: flushes nothing
        if "encore_claim_rsvp" in sql:
            claim_end.append(raw.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0])
        elif claim_end:
            on_disk = "SELECT pg_current_wal_flush_lsn() >= %s::pg_lsn"
            after.append((sql, raw.execute(on_disk, claim_end).fetchone()[0]))
        return result

    with connection.execute_wrapper(watch_the_flush):
        EventManager(claimer, _fresh(event)).rsvp(YES)

    assert EventRSVP.objects.get(event=event, user=claimer).status == YES
    assert after[0] == (claim_function.DURABLE, True)


def test_inside_a_transaction_the_python_path_keeps_its_rollback():
    event = waitlist_event(5)
    person = make_user()
    with (
        CaptureQueriesContext(connection) as captured,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        EventManager(person, _fresh(event)).rsvp(YES)
        raise RuntimeError("the caller gives up")
    assert not any("encore_claim_rsvp" in s for s in _claim_sql(captured))
    assert not EventRSVP.objects.filter(event=event).exists()
    assert Event.objects.get(pk=event.pk).attendee_count == 0


def test_a_party_takes_its_guests_seats_and_is_refused_when_they_do_not_fit():
    event = waitlist_event(5)
    fill_with_rsvps(event, 2)
    first, second = make_user(), make_user()

    EventManager(first, _fresh(event)).rsvp(YES, guests=2)  # 3 seats: full now
    assert Event.objects.get(pk=event.pk).attendee_count == 5
    assert EventRSVP.objects.get(event=event, user=first).guests == 2

    with pytest.raises(EligibilityRefused) as no:
        EventManager(second, _fresh(event)).rsvp(YES, guests=1, by_staff=True)
    assert no.value.code == "event_is_full"
    assert not EventRSVP.objects.filter(event=event, user=second).exists()
    assert Event.objects.get(pk=event.pk).attendee_count == 5


def test_an_invitation_that_overrides_capacity_registers_into_a_full_event():
    event = waitlist_event(2)
    fill_with_rsvps(event, 2)
    guest = make_user()
    Invitation.objects.create(event=event, user=guest, overrides_max_attendees=True)

    EventManager(guest, _fresh(event)).rsvp(YES, by_staff=True)

    assert EventRSVP.objects.get(event=event, user=guest).status == YES
    assert Event.objects.get(pk=event.pk).attendee_count == 3


def test_a_lapsed_pending_offer_is_revoked_when_its_holder_registers():
    event = waitlist_event(5)
    member = make_user()
    queue(event, [member])
    lapsed = offer(event, member, expires_in=timedelta(minutes=-5))

    EventManager(member, _fresh(event)).rsvp(YES, by_staff=True)

    lapsed.refresh_from_db()
    assert lapsed.status == Status.REVOKED
    assert lapsed.revoked_reason == WaitlistOffer.RevokedReason.ENTRY_DELETED
    assert not EventWaitList.objects.filter(event=event, user=member).exists()
    assert Event.objects.get(pk=event.pk).attendee_count == 1


@pytest.mark.parametrize("attendees", [2, 3])
def test_a_refusal_reads_as_the_python_paths_refusal(attendees: int):
    """The same full event (by a held seat, or by its attendees), refused once through
    the function (on its snapshot, before any lock) and once inside a transaction (the
    Python path): the user is told the same thing."""
    event = waitlist_event(3)
    fill_with_rsvps(event, attendees)
    holder, caller = make_user(), make_user()
    queue(event, [holder, caller])
    offer(event, holder, expires_in=timedelta(hours=1))
    offer(event, caller, expires_in=timedelta(hours=3), is_cutoff_batch=True)

    def refusal(wrap: bool) -> dict[str, Any]:
        manager = EventManager(caller, _fresh(event))
        with pytest.raises(EligibilityRefused) as no:
            if wrap:
                with transaction.atomic():
                    manager.rsvp(YES, by_staff=True)
            else:
                manager.rsvp(YES, by_staff=True)
        answer = no.value.eligibility
        return {
            "status": no.value.status_code,
            "reason": answer.reason_code,
            "next_step": answer.next_step,
            "held": answer.pending_offers_count,
            "position": answer.waitlist_position,
            "next_batch_at": answer.next_batch_at,
            "own_offer": answer.active_offer_expires_at,
        }

    through_function, through_python = refusal(False), refusal(True)
    assert through_function == through_python
    assert through_function["held"] == 1
    if attendees == 2:
        assert through_function["reason"] == "on_waitlist_waiting_for_batch"
    assert not EventRSVP.objects.filter(event=event, user=caller).exists()


# -- what may change between the function's first read and its lock ------------------------
def _while_the_claim_waits_for_the_lock(event: Event, claim: Any, meanwhile: Any) -> Any:
    """Hold the Event row lock on another connection, start `claim` in this thread's
    place (a thread of its own), and once it waits for the lock run `meanwhile` in the
    locking transaction and commit: the claim's reads before its lock miss that write."""
    locked, result = threading.Event(), {}

    def holder() -> None:
        try:
            with transaction.atomic():
                lock_event_row(event.pk)
                locked.set()
                if not a_backend_waits_on_a_lock():
                    result["holder"] = "the claim never waited for the lock"
                    return
                meanwhile()
        finally:
            connection.close()

    thread = threading.Thread(target=holder)
    thread.start()
    assert locked.wait(10)
    answer = claim()
    thread.join(15)
    assert "holder" not in result, result["holder"]
    return answer


def test_an_offer_issued_while_the_claim_waited_is_the_one_it_claims():
    event = waitlist_event(5)
    member = make_user()
    queue(event, [member])
    issued: list[WaitlistOffer] = []

    rsvp = _while_the_claim_waits_for_the_lock(
        event,
        lambda: EventManager(member, _fresh(event)).rsvp(YES, by_staff=True),
        lambda: issued.append(offer(event, member, expires_in=timedelta(hours=1))),
    )

    assert rsvp.status == YES
    issued[0].refresh_from_db()
    assert issued[0].status == Status.CLAIMED  # not revoked as a lapsed one would be
    assert not EventWaitList.objects.filter(event=event, user=member).exists()
    assert Event.objects.get(pk=event.pk).attendee_count == 1


def test_the_last_seat_taken_while_the_claim_waited_is_refused_under_the_lock():
    """The snapshot had room, the lock has none: the function refuses by rolling back
    (no commit to flush while others wait), and the answer is the Python path's."""
    event = waitlist_event(3)
    fill_with_rsvps(event, 2)
    late, quick = make_user(), make_user()

    def quick_takes_the_last_seat() -> None:
        EventRSVP.objects.create(event=event, user=quick, status=YES)
        Event.objects.filter(pk=event.pk).update(attendee_count=3)

    with CaptureQueriesContext(connection) as captured, pytest.raises(EligibilityRefused) as no:
        _while_the_claim_waits_for_the_lock(
            event,
            lambda: EventManager(late, _fresh(event)).rsvp(YES, by_staff=True),
            quick_takes_the_last_seat,
        )

    assert len([s for s in _claim_sql(captured) if "encore_claim_rsvp" in s]) == 1
    assert not any("FOR UPDATE" in s for s in _claim_sql(captured))  # no Python path
    with pytest.raises(EligibilityRefused) as python, transaction.atomic():
        EventManager(late, _fresh(event)).rsvp(YES, by_staff=True)
    assert no.value.code == python.value.code == "event_is_full"
    assert no.value.eligibility == python.value.eligibility
    assert not EventRSVP.objects.filter(event=event, user=late).exists()
    assert Event.objects.get(pk=event.pk).attendee_count == 3


def test_the_same_users_parallel_registration_is_answered_by_the_python_path():
    """The caller's other request registered while this one waited: the function's
    INSERT meets the unique (event, user) pair, writes nothing, and the Python path
    answers with the RSVP that exists; the seat is counted once."""
    event = waitlist_event(5)
    person = make_user()

    def the_other_request() -> None:
        EventRSVP.objects.create(event=event, user=person, status=YES)
        Event.objects.filter(pk=event.pk).update(attendee_count=1)

    rsvp = _while_the_claim_waits_for_the_lock(
        event, lambda: EventManager(person, _fresh(event)).rsvp(YES), the_other_request
    )

    assert rsvp.status == YES
    assert EventRSVP.objects.filter(event=event, user=person).count() == 1
    assert Event.objects.get(pk=event.pk).attendee_count == 1


def test_a_smaller_venue_set_while_the_claim_waited_is_the_capacity_it_checks():
    event = waitlist_event(0)  # capacity from the venue only
    fill_with_rsvps(event, 2)
    roomy = Venue.objects.create(organization=event.organization, name="Hall", capacity=10)
    small = Venue.objects.create(organization=event.organization, name="Room", capacity=2)
    Event.objects.filter(pk=event.pk).update(venue=roomy)
    person = make_user()

    with pytest.raises(EligibilityRefused) as no:
        _while_the_claim_waits_for_the_lock(
            event,
            lambda: EventManager(person, _fresh(event)).rsvp(YES, by_staff=True),
            lambda: Event.objects.filter(pk=event.pk).update(venue=small),
        )

    assert no.value.code == "event_is_full"
    assert not EventRSVP.objects.filter(event=event, user=person).exists()


def test_a_change_of_answer_goes_the_python_way_and_still_counts_seats():
    event = waitlist_event(5)
    person = make_user()
    EventManager(person, _fresh(event)).rsvp(EventRSVP.Status.NO)

    EventManager(person, _fresh(event)).rsvp(YES, guests=1)

    assert EventRSVP.objects.get(event=event, user=person).seats == 2
    assert Event.objects.get(pk=event.pk).attendee_count == 2


def test_a_member_registering_as_the_sweep_holds_their_lapsed_offer_never_deadlocks():
    """The expiry sweep writes offer rows, then queue rows. A member whose offer lapsed
    registers while the sweep holds that offer row: the claim waits for the offer row
    before it touches the queue row, so the sweep's queue write goes through, and the
    claim then finds the offer swept (it revokes nothing) and the seat free."""
    event = waitlist_event(5)
    member = make_user()
    queue(event, [member])
    lapsed = offer(event, member, expires_in=-timedelta(minutes=1))
    answer: dict[str, Any] = {}

    def register() -> None:
        try:
            answer["rsvp"] = EventManager(member, _fresh(event)).rsvp(YES, by_staff=True)
        except Exception as exc:  # a deadlock lands here and fails the test below
            answer["error"] = exc
        finally:
            connection.close()

    claimer = threading.Thread(target=register)
    with transaction.atomic():  # the sweep's order, one write at a time
        WaitlistOffer.objects.filter(pk=lapsed.pk).update(status=Status.EXPIRED)
        claimer.start()
        assert a_backend_waits_on_a_lock(), answer or "the claim never waited for the offer"
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '5s'")
        EventWaitList.objects.filter(event=event, user=member).update(
            last_offer_expired_at=lapsed.expires_at
        )
    claimer.join(15)

    assert "error" not in answer, answer.get("error")
    assert answer["rsvp"].status == YES
    lapsed.refresh_from_db()
    assert lapsed.status == Status.EXPIRED
    assert not EventWaitList.objects.filter(event=event, user=member).exists()
    assert Event.objects.get(pk=event.pk).attendee_count == 1
