"""The core of `events`: organisations, venues, events, RSVPs, invitations, the
eligibility pipeline and the claim, the locks every feature takes.

Layers, top to bottom (import-linter contracts in `pyproject.toml`):

| module | holds |
|---|---|
| `controllers/` | routes by audience: `event_admin/` (an event's settings, invitations, RSVPs), `event_public/` (events, attendance), `organization/`, `organization_admin/` (settings, members, staff, venues, blacklist, events), `me` |
| `tasks.py` | the Celery tasks: an event's notification to its audience, an RSVP's confirmation |
| `schemas/` | bodies and answers of those routes |
| `services/` | the write side: `event_manager` (the RSVP writer) with `claim_function` and `claim_statements` (the one-statement claim and the Python claim's writes), `locks` (the global lock order), `event_service`, `event_fields`, the organisation services, `user_departure`, `event_notifications` |
| `eligibility/` | the pipeline, its gates, the one capacity rule and the locked check, my-status |
| `selectors/` | the read side: access checks, event lists and pages, `locked_check` |
| `errors.py` | the core's domain errors |
| `models/` | `Event`, `Organization` and its members, `Venue`, `EventRSVP`, `Invitation` |
| `sql/claim_rsvp.sql` | `encore_claim_rsvp`, the claim in one statement (ADR 0030) |
| `tests/` | the core's tests and the factories every feature's tests use |

The feature packages (`waitlist`, `ticketing`, `series`) build on this one. The core
calls the waitlist where the seeds put it in an RSVP's path (the claim of an offer, the
queue in the eligibility gates) and ticketing where an event's check-in or cancellation
concerns tickets; it imports the series only for `Event.event_series` and the event
PATCH of a template (the contracts name both).
"""
