"""A thin re-export: the routes live in
`events.series.controllers.organization_admin.series_admin`.

`all_controllers()` walks this package in module-name order, and that order makes the
OpenAPI document; this module keeps the routes at their place in it."""

from events.series.controllers.organization_admin.series_admin import CONTROLLERS

__all__ = ["CONTROLLERS"]
