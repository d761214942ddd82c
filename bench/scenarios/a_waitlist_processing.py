"""a1/a2/a3: one processing pass of the waitlist on a big queue (docs/spec/quality.md, docs/spec/waitlist-design.md).

Capacity 1000, 900 attendees, nobody holding an offer, 10,000 members in line (a3:
100,000), batch size 50: each pass creates 50 offers, rolled back after it. FIFO reads
the head of the queue off the `waitlist_selection_order` index; the lottery reads the
arcs after its seeded start point off the `waitlist_lottery_ring` index and records
its draw (ADR 0018), so a3 should cost what a2 costs.

Between runs nothing but the savepoint's rollback (docs/spec/quality.md's method). No
VACUUM ANALYZE there: a VACUUM that cleans the offers table (the 50 rows a rolled-back
run leaves dead) invalidates the plans of every prepared statement reading it, so each
timed pass would plan its ring read again, which a worker's connection does once, and
again only after autovacuum visits the table (figures in docs/bench.md, a3). The 50 dead
rows a run leaves are all the next run inherits.
"""

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from bench import builders
from bench.registry import Measured, committed_scenario
from events.waitlist.services import process_waitlist_for_event

CAPACITY = 1000
ATTENDEES = 900
QUEUE = 10_000
BIG_QUEUE = 100_000
BATCH = 50
DATA = f"cap {CAPACITY}, {ATTENDEES} attendees, {QUEUE:,} queued, batch {BATCH}"
BIG_DATA = f"cap {CAPACITY}, {ATTENDEES} attendees, {BIG_QUEUE:,} queued, batch {BATCH}"
METHOD = "committed data; each run rolled back, nothing else between runs"


@contextmanager
def processing_pass(tag: str, *, lottery: bool, queue: int = QUEUE) -> Iterator[Measured]:
    with builders.committed(tag):
        event = builders.waitlist_event(
            tag, capacity=CAPACITY, batch_size=BATCH, waitlist_lottery_mode=lottery
        )
        builders.attendees(event, ATTENDEES)
        builders.queue(event, builders.users(queue, f"{tag}-queue"))
        builders.analyze()

        def call() -> object:
            result = process_waitlist_for_event(event.pk)
            assert result.offers_created == BATCH, result
            return result

        yield call


@committed_scenario(
    "a1",
    "process_waitlist_for_event, FIFO",
    data=DATA,
    method=METHOD,
)
def fifo_pass() -> AbstractContextManager[Measured]:
    return processing_pass("a1", lottery=False)


@committed_scenario(
    "a2",
    "process_waitlist_for_event, lottery",
    data=DATA,
    method=METHOD,
)
def lottery_pass() -> AbstractContextManager[Measured]:
    return processing_pass("a2", lottery=True)


@committed_scenario(
    "a3",
    "process_waitlist_for_event, lottery, big queue",
    data=BIG_DATA,
    method=METHOD,
)
def lottery_pass_big_queue() -> AbstractContextManager[Measured]:
    return processing_pass("a3", lottery=True, queue=BIG_QUEUE)
