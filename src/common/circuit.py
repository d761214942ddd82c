"""A part that just failed is not asked again for a few seconds, in this process.

A request may talk to Redis several times (the write throttle's counters, one publish per
task it sends). With Redis gone, each of those would wait for its own time-out; after the
first failure the others are skipped at once, and so are those of the next requests for
`pause` seconds, after which one request tries again (ADR 0037). What a skipped call
does instead is its caller's choice: the throttle lets the request through, the outbox
keeps the task for its flush.
"""

import logging
import threading
import time

logger = logging.getLogger("encore.circuit")


class Breaker:
    """One part (the broker, the cache) as this process last found it."""

    def __init__(self, name: str, pause: float = 5.0) -> None:
        self.name = name
        self.pause = pause
        self._until = 0.0
        self._lock = threading.Lock()

    def is_open(self) -> bool:
        """True while the part failed less than `pause` seconds ago: do not ask it."""
        return time.monotonic() < self._until

    def trip(self, error: BaseException) -> None:
        with self._lock:
            was_open = self.is_open()
            self._until = time.monotonic() + self.pause
        if not was_open:
            logger.warning(
                "%s unavailable; not asked again for %s s",
                self.name,
                self.pause,
                extra={"error": repr(error)[:200]},
            )

    def reset(self) -> None:
        self._until = 0.0
