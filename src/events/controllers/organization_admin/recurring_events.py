"""The path docs/spec/series-design.md names for the series' admin routes; they live in
`events.series.controllers.organization_admin.recurring_events`."""

from events.series.controllers.organization_admin.recurring_events import CONTROLLERS

__all__ = ["CONTROLLERS"]
