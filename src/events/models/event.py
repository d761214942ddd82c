"""The path docs/spec/waitlist-design.md names for the `Event` model; it lives in
`events.core.models.event` (the core's package)."""

from events.core.models.event import Event

__all__ = ["Event"]
