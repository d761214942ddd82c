"""The path docs/spec/series-design.md names for the series model; the model lives in
`events.series.models` (the series feature's package) and is re-exported here."""

from events.series.models import (
    DEFAULT_GENERATION_WINDOW_WEEKS,
    EventSeries,
    EventSeriesFollow,
    EventSeriesSlug,
)

__all__ = ["DEFAULT_GENERATION_WINDOW_WEEKS", "EventSeries", "EventSeriesFollow", "EventSeriesSlug"]
