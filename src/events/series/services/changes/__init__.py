"""Changing a running series: cadence, time of day, duration, window. Plan, then apply.

`plan_series_change` works out, without writing, what a change does to the series:
which dates are created, which occurrences move and which become stale. The preview
route answers with that plan; `apply_series_change` computes the same plan under the
series lock and executes exactly it, so a preview can never promise something the
apply does not do (ADR 0024).

How an existing occurrence is matched to the changed rule (its *slot* is the instant it
was generated for, `scheduled_start`, else its start):

1. a slot that is still an instant of the series stays where it is;
2. otherwise the new rule's instant on the same local date takes it: a time-of-day change
   moves the occurrence to the new time that day (wall clock in the series' zone, so a
   DST switch between dtstart and the date changes nothing), unless that time has passed;
3. otherwise (the date left the rule) a future, unmodified, not-cancelled occurrence is
   stale: kept or cancelled (`stale`), exactly what drift reports afterwards.

Only future, unmodified, not-cancelled occurrences move. Past, modified and cancelled
ones stay put but keep the slot of their date (steps 1–2), so the new rule never puts a
second occurrence on that date; their `scheduled_start` follows the new instant, which
is what later generation passes skip. Exdates of the old rule follow their date the same
way, so a cancelled date stays cancelled at the new time.

A moved occurrence keeps its row, tickets, RSVPs and offers; every datetime of it and
its tiers shifts by the move, its end is start + the (new) duration, and its attendees
get `event_updated`. Dates are created by one generation pass over the new window, in
the same transaction.
"""

from events.series.services.changes.applying import AppliedChange, apply_series_change
from events.series.services.changes.planning import (
    STALE_CHOICES,
    ChangePlan,
    Move,
    SeriesChange,
    StaleOccurrence,
    plan_series_change,
    preview_series_change,
    series_instants,
)

__all__ = [
    "STALE_CHOICES",
    "AppliedChange",
    "ChangePlan",
    "Move",
    "SeriesChange",
    "StaleOccurrence",
    "apply_series_change",
    "plan_series_change",
    "preview_series_change",
    "series_instants",
]
