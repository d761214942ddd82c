"""b1/b2: the hourly expiry sweep over 10,000 lapsed offers (docs/spec/quality.md, docs/spec/waitlist-design.md).

One event whose seats were all held by a 10,000-offer batch that nobody claimed: every
offer is PENDING with `expires_at` a minute ago. The sweep expires them and stamps the
members' rotation (a fixed number of statements). The follow-up processing pass it
enqueues would leave after the commit, which a rolled-back run never reaches: that
dispatch is stubbed by construction. b2 then runs that pass inline (FIFO, batch 50): the
1,000 members who never had an offer are now the head of the queue.

The offers are committed before the runs, as in production: an UPDATE of rows its own
transaction inserted would make PostgreSQL re-check both foreign keys of every row.
"""

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import timedelta

from django.utils import timezone

from bench import builders
from bench.registry import Measured, committed_scenario
from events.waitlist.services import expire_waitlist_offers, process_waitlist_for_event

ATTENDEES = 900
EXPIRED = 10_000
WAITING = 1_000
BATCH = 50
DATA = f"1 event, {EXPIRED:,} lapsed offers, {EXPIRED + WAITING:,} queued"
METHOD = (
    "committed data; each run rolled back, VACUUM + CHECKPOINT after (untimed); "
    "on-commit dispatch never runs"
)


@contextmanager
def lapsed_batch(tag: str, *, then_process: bool) -> Iterator[Measured]:
    with builders.committed(tag):
        event = builders.waitlist_event(tag, capacity=ATTENDEES + EXPIRED, batch_size=BATCH)
        builders.attendees(event, ATTENDEES)
        holders = builders.users(EXPIRED, f"{tag}-holder")
        builders.queue(event, holders + builders.users(WAITING, f"{tag}-waiting"))
        builders.offers(event, holders, timezone.now() - timedelta(minutes=1))
        builders.analyze()

        def call() -> object:
            sweep = expire_waitlist_offers()
            assert sweep.expired == EXPIRED and sweep.event_ids == [event.pk], sweep
            if then_process:
                result = process_waitlist_for_event(event.pk)
                assert result.offers_created == BATCH, result
            return sweep

        yield call


@committed_scenario("b1", "expiry sweep", data=DATA, method=METHOD, between_runs=builders.settle)
def sweep() -> AbstractContextManager[Measured]:
    return lapsed_batch("b1", then_process=False)


@committed_scenario(
    "b2",
    "expiry sweep + follow-up pass inline",
    data=f"{DATA}, batch {BATCH}",
    method=METHOD,
    between_runs=builders.settle,
)
def sweep_then_process() -> AbstractContextManager[Measured]:
    return lapsed_batch("b2", then_process=True)
