"""The recurring-series feature (docs/spec/series-design.md), in one place.

Layers, top to bottom (an import-linter contract in `pyproject.toml`; a layer imports
only layers below it, and the core of `events` imports none of this package):

| module | holds |
|---|---|
| `controllers/organization_admin/` | the admin routes under `/organization-admin/{slug}`: `recurring_events` (create, generate, cancel, drift, template, recurrence), `series_admin` (list, series PATCH), `series_changes` (preview), `series_split` (extra dates, split) |
| `controllers/event_public/series.py` | the public routes: a series with its occurrences, by id and by slug, and its `.ics` feed |
| `tasks.py` | the Celery tasks `events.generate_recurring_events` and `events.generate_single_series_events` |
| `schemas/` | bodies and answers: `series` (create, detail, public), `series_edit` (series PATCH, local dates, durations), `series_changes` (recurrence PATCH, preview), `series_split` (extra dates, split) |
| `services/` | the write side, one module per concept (its `__init__` has the table): generation, occurrences, cadence, `changes/` (plan, apply), drift, cancellation, propagation, lifecycle, extra dates, split, editing; `series_notifications` (the digest) |
| `selectors/` | the read side: `series` (admin access, visible series and occurrences), `series_list` (the admin list), `series_pages` (the organiser's page), `series_slugs` (former slugs) |
| `errors.py` | the series' domain errors |
| `models.py` | `EventSeries`, `EventSeriesSlug`, `EventSeriesFollow`, `RecurrenceRule` (app label `events`, one migration history) |
| `tests/` | the series' tests and `recurrence_builders` |

The series builds on the core of `events` (organisations, events, locks, slugs, event
notifications). The core imports the series directly at two places only (an
import-linter contract names them): `Event.event_series` (the design's foreign key) and
the event PATCH, which asks the series about a template. The design's paths stay as thin
re-exports: `events.models.event_series`, `events.models.recurrence_rule`,
`events.service.recurrence_service` and
`events.controllers.organization_admin.recurring_events`; `events.models` exports the
models so Django registers them, and `events.tasks` imports the tasks so that Celery
registers them.
"""
