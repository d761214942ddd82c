"""a1/a2: one processing pass of the waitlist on a big queue (quality.md, seed 000).

Capacity 1000, 900 attendees, nobody holding an offer, 10,000 members in line, batch
size 50: each pass creates 50 offers, rolled back after it. FIFO reads the head of the
queue off the `waitlist_selection_order` index; the lottery samples in the database.
"""

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from bench import builders
from bench.registry import Measured, committed_scenario
from events.service.waitlist_service import process_waitlist_for_event

CAPACITY = 1000
ATTENDEES = 900
QUEUE = 10_000
BATCH = 50
DATA = f"cap {CAPACITY}, {ATTENDEES} attendees, {QUEUE:,} queued, batch {BATCH}"
METHOD = "committed data; each run rolled back, VACUUM after (untimed)"


@contextmanager
def processing_pass(tag: str, *, lottery: bool) -> Iterator[Measured]:
    with builders.committed(tag):
        event = builders.waitlist_event(
            tag, capacity=CAPACITY, batch_size=BATCH, waitlist_lottery_mode=lottery
        )
        builders.attendees(event, ATTENDEES)
        builders.queue(event, builders.users(QUEUE, f"{tag}-queue"))
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
    between_runs=builders.analyze,
)
def fifo_pass() -> AbstractContextManager[Measured]:
    return processing_pass("a1", lottery=False)


@committed_scenario(
    "a2",
    "process_waitlist_for_event, lottery",
    data=DATA,
    method=METHOD,
    between_runs=builders.analyze,
)
def lottery_pass() -> AbstractContextManager[Measured]:
    return processing_pass("a2", lottery=True)
