"""The active waitlist (docs/spec/waitlist-design.md), in one place.

Layers, top to bottom (import-linter contracts in `pyproject.toml`):

| module | holds |
|---|---|
| `controllers/` | `event_admin/` (the queue, settings and offers, statistics), `event_public/waitlist_draws` (the lottery's public record) |
| `tasks.py` | the Celery tasks: processing passes, offer expiry (per deadline and the hourly sweep), the nudge, the offer notices |
| `schemas/` | `settings_and_offers`, `queue`, `stats`, `draws` |
| `services/` | the write side, one module per concept (its `__init__` has the table): triggering, useful offers, processing and offer batches, batch planning and the lotteries, admin offers, claims, decline, membership, sweeps and offer expiry, queue samples; `notifications` (the offer e-mails' context), `settings` (the waitlist's settings) |
| `selectors/` | the read side: `queue` (who is next, what is held), `candidates`, `offers`, `eta` + `eta_rules`, `stats`, `lottery`, `draws`, `page` |
| `errors.py` | the waitlist's domain errors |
| `models/` | `EventWaitList`, `WaitlistOffer`; `WaitlistDraw`, `WaitlistQueueSample` (history) |
| `tests/` | the waitlist's tests, its race and state-machine harnesses |

The design's paths stay as thin re-exports: `events.service.waitlist_service`,
`events.controllers.event_admin.waitlist_offers`, the models through `events.models`,
the tasks through `events.tasks` (under the design's names).
"""
