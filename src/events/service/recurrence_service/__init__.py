"""The path docs/spec/series-design.md names for the series services
(`recurrence_service.generate_series_events`). The services live in
`events.series.services` (the series feature's package); this module re-exports every
name that package exports, the same objects, not copies."""

from events.series import services as _services
from events.series.services import *  # noqa: F403  (exactly `_services.__all__`)

__all__ = list(_services.__all__)
