"""The series' write side (docs/spec/series-design.md): generation and series administration.

One module per concept; this package re-exports the names its callers use
(`recurrence_service.generate_series_events`). `events.service.recurrence_service`, the
series design's entry point, re-exports them in turn. Inside the package, modules import
each other directly, never through this file.

| module | concept |
|---|---|
| `generation` | the rolling window and the one pass that materialises occurrences |
| `occurrences` | one occurrence: the clone of the template, its slug, exdates |
| `cadence` | editing the recurrence rule and the window (resets the cursor) |
| `changes` | a change of cadence, time of day or duration: planned, previewed, applied |
| `drift` | occurrences off the current cadence, and cancelling them |
| `cancellation` | cancelling one occurrence for good (an exdate) |
| `propagation` | template edits pushed onto future occurrences |
| `lifecycle` | creating, pausing, resuming, publishing and deleting a series |
| `series_parts` | the rule and the template every operation needs |
| `extra_dates` | one-off extra dates (RDATE): adding and removing them |
| `split` | this and following: a series ends before a date, a new one takes over |
| `editing` | the series' own fields: name, description, slug (former slugs kept) |
| `occurrence_dates` | the occurrence a local date names (`cancel-occurrence`) |
| `template_guard` | the event PATCH refuses a template's non-propagatable fields |
| `series_notifications` | the digest of new occurrences to the series' followers |

Every administration function locks the series row first, then Event rows (pk order),
per docs/spec/domain.md.
"""

from events.series.errors import NotAnOccurrence, NotARecurringSeries
from events.series.services.cadence import check_rule_fields, update_series_recurrence
from events.series.services.cancellation import CancelledOccurrence, cancel_occurrence
from events.series.services.changes import (
    AppliedChange,
    ChangePlan,
    SeriesChange,
    apply_series_change,
    plan_series_change,
    preview_series_change,
)
from events.series.services.drift import cancel_stale_occurrences, detect_cadence_drift
from events.series.services.editing import update_series
from events.series.services.extra_dates import add_extra_date, remove_extra_date
from events.series.services.generation import (
    GenerationWindow,
    dispatch_series_generation,
    generatable_series_ids,
    generate_for_series_id,
    generate_series_events,
    generation_window,
    materialize_occurrence,
    materialize_occurrences,
)
from events.series.services.lifecycle import (
    create_recurring_event_series,
    delete_series,
    pause_series,
    publish_drafts,
    resume_series,
)
from events.series.services.occurrence_dates import occurrence_on
from events.series.services.occurrences import (
    Occurrence,
    duplicate_event,
    exdate_instants,
    exdate_key,
    occurrence_slugs,
)
from events.series.services.propagation import (
    PROPAGATABLE_FIELDS,
    PROPAGATION_SCOPES,
    TemplateUpdate,
    update_template,
)
from events.series.services.series_parts import rule_of, template_of
from events.series.services.split import STALE_CHOICES, SeriesSplit, split_series
from events.series.services.template_guard import check_event_patch_of_template

__all__ = [
    "PROPAGATABLE_FIELDS",
    "PROPAGATION_SCOPES",
    "STALE_CHOICES",
    "AppliedChange",
    "CancelledOccurrence",
    "ChangePlan",
    "GenerationWindow",
    "NotARecurringSeries",
    "NotAnOccurrence",
    "Occurrence",
    "SeriesChange",
    "SeriesSplit",
    "TemplateUpdate",
    "add_extra_date",
    "apply_series_change",
    "cancel_occurrence",
    "cancel_stale_occurrences",
    "check_event_patch_of_template",
    "check_rule_fields",
    "create_recurring_event_series",
    "delete_series",
    "detect_cadence_drift",
    "dispatch_series_generation",
    "duplicate_event",
    "exdate_instants",
    "exdate_key",
    "generatable_series_ids",
    "generate_for_series_id",
    "generate_series_events",
    "generation_window",
    "materialize_occurrence",
    "materialize_occurrences",
    "occurrence_on",
    "occurrence_slugs",
    "pause_series",
    "plan_series_change",
    "preview_series_change",
    "publish_drafts",
    "remove_extra_date",
    "resume_series",
    "rule_of",
    "split_series",
    "template_of",
    "update_series",
    "update_series_recurrence",
    "update_template",
]
