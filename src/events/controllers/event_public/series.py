"""A thin re-export: the routes live in
`events.series.controllers.event_public.series`.

`all_controllers()` walks this package in module-name order, and that order makes the
OpenAPI document; this module keeps the routes at their place in it."""

from events.series.controllers.event_public.series import CONTROLLERS

__all__ = ["CONTROLLERS"]
