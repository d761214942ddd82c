"""The routes of every feature package of `events`, in the order of the OpenAPI document.

Each controller module lists its classes in `CONTROLLERS`; the order here is the order of
the paths in `docs/spec/openapi.json` (`encore/tests/test_contract_snapshots.py`), so a
new module goes where its routes belong in the document. The two subpackages hold only
the thin re-exports at the paths the design documents name.
"""

import importlib

MODULES = [
    "events.core.controllers.event_admin.event",
    "events.core.controllers.event_admin.deliveries",
    "events.core.controllers.event_admin.invitations",
    "events.core.controllers.event_admin.rsvps",
    "events.ticketing.controllers.event_admin.tickets",
    "events.waitlist.controllers.event_admin.waitlist",
    "events.waitlist.controllers.event_admin.waitlist_offers",
    "events.waitlist.controllers.event_admin.waitlist_stats",
    "events.core.controllers.event_public.attendance",
    "events.ticketing.controllers.event_public.checkout",
    "events.core.controllers.event_public.events",
    "events.series.controllers.event_public.series",
    "events.waitlist.controllers.event_public.waitlist_draws",
    "events.core.controllers.me",
    "events.core.controllers.organization.organizations",
    "events.core.controllers.organization_admin.blacklist",
    "events.core.controllers.organization_admin.events",
    "events.core.controllers.organization_admin.members",
    "events.core.controllers.organization_admin.membership_requests",
    "events.core.controllers.organization_admin.organization",
    "events.series.controllers.organization_admin.recurring_events",
    "events.series.controllers.organization_admin.series_admin",
    "events.series.controllers.organization_admin.series_changes",
    "events.series.controllers.organization_admin.series_split",
    "events.core.controllers.organization_admin.staff",
    "events.core.controllers.organization_admin.venues",
    "events.ticketing.controllers.payments",
]


def all_controllers() -> list[type]:
    found: list[type] = []
    for name in MODULES:
        found += importlib.import_module(name).CONTROLLERS
    return found
