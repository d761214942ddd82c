"""A thin re-export: the routes live in
`events.series.controllers.organization_admin.recurring_events`.

`all_controllers()` walks this package in module-name order, and that order makes the
OpenAPI document; this module keeps the routes at their place in it. The path is also
the one docs/spec/series-design.md names."""

from events.series.controllers.organization_admin.recurring_events import CONTROLLERS

__all__ = ["CONTROLLERS"]
