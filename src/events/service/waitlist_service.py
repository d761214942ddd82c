"""The waitlist: the legacy queue now, the advanced offer flow of seed 000 in issue 4.

`enqueue_waitlist_processing(event_id)` is called by every path that frees capacity
(seed-tables.md, "Trigger sites"). Until the offer processor exists it only records
the trigger, so the call sites are already in place and tested.
"""

import logging
import uuid

from django.db import transaction

logger = logging.getLogger("encore.waitlist")


def enqueue_waitlist_processing(event_id: uuid.UUID) -> None:
    """Schedule one processing pass for the event once the surrounding transaction commits."""
    transaction.on_commit(lambda: _dispatch(event_id))


def _dispatch(event_id: uuid.UUID) -> None:
    # Issue 4 replaces this with events.process_waitlist_for_event.delay(event_id).
    logger.info("waitlist processing requested", extra={"event_id": str(event_id)})
