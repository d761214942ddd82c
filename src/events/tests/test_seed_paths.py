"""The design documents' import paths keep working (docs/spec/waitlist-design.md,
docs/spec/series-design.md, docs/spec/seed-tables.md "Celery tasks").

The designs name modules such as `events/service/event_manager/gates.py`; the code lives
elsewhere now, and those modules are thin re-exports. Each must hand out the object the
code itself uses, not a copy, and the tasks must keep the names beat and the outbox send.
"""

import importlib

import pytest

from encore.celery import app
from events.core.eligibility import enums, gates, pipeline, types
from events.core.schemas.event import EventDetail
from events.core.services.event_manager import EventManager
from events.models import Event, EventSeries, EventWaitList, RecurrenceRule, WaitlistOffer
from events.series.controllers.organization_admin import recurring_events
from events.ticketing.services.batch_tickets import BatchTicketService
from events.waitlist.controllers.event_admin import waitlist_offers
from events.waitlist.selectors.queue import held_offer_count
from events.waitlist.services import process_waitlist_for_event

SEED_PATHS = [
    ("events.service.event_manager.enums", "Reasons", enums.Reasons),
    ("events.service.event_manager.enums", "NextStep", enums.NextStep),
    ("events.service.event_manager.types", "EventUserEligibility", types.EventUserEligibility),
    ("events.service.event_manager.service", "EligibilityService", pipeline.EligibilityService),
    ("events.service.event_manager.gates", "AvailabilityGate", gates.AvailabilityGate),
    ("events.service.event_manager.gates", "_pending_offer_count_for_check", held_offer_count),
    ("events.service.event_manager.manager", "EventManager", EventManager),
    ("events.service.waitlist_service", "process_waitlist_for_event", process_waitlist_for_event),
    ("events.service.batch_ticket_service", "BatchTicketService", BatchTicketService),
    ("events.service.batch_ticket_service.service", "BatchTicketService", BatchTicketService),
    ("events.models.event", "Event", Event),
    ("events.schema.event", "EventDetail", EventDetail),
    ("events.controllers.event_admin.waitlist_offers", "CONTROLLERS", waitlist_offers.CONTROLLERS),
    (
        "events.controllers.organization_admin.recurring_events",
        "CONTROLLERS",
        recurring_events.CONTROLLERS,
    ),
    ("events.models", "Event", Event),
    ("events.models", "WaitlistOffer", WaitlistOffer),
    ("events.models", "EventWaitList", EventWaitList),
    ("events.models", "EventSeries", EventSeries),
    ("events.models", "RecurrenceRule", RecurrenceRule),
]

SEED_FUNCTIONS = {
    "events.service.waitlist_service": [
        "process_waitlist_for_event",
        "enqueue_waitlist_processing",
        "create_admin_offer",
        "reactivate_admin_offer",
        "expire_waitlist_offers",
    ],
    "events.service.recurrence_service": [
        "generate_series_events",
        "cancel_occurrence",
        "detect_cadence_drift",
    ],
    "events.service.batch_ticket_service": ["BatchTicketService"],
}

SEED_TASKS = [
    "events.process_waitlist_for_event",
    "events.expire_waitlist_offers",
    "events.generate_recurring_events",
    "events.generate_single_series_events",
]


@pytest.mark.parametrize(
    ("module", "name", "expected"), SEED_PATHS, ids=[f"{m}.{n}" for m, n, _ in SEED_PATHS]
)
def test_a_design_path_hands_out_the_object_the_code_uses(module, name, expected):
    assert getattr(importlib.import_module(module), name) is expected


@pytest.mark.parametrize(("module", "names"), SEED_FUNCTIONS.items())
def test_a_design_module_offers_its_functions(module, names):
    loaded = importlib.import_module(module)
    assert [name for name in names if not callable(getattr(loaded, name, None))] == []


@pytest.mark.parametrize("name", SEED_TASKS)
def test_a_design_task_is_registered_under_its_name(name):
    importlib.import_module("events.tasks")
    assert name in app.tasks
