"""The path docs/spec/waitlist-design.md names for the RSVP writer; `EventManager` lives
in `events.core.services.event_manager`."""

from events.core.services.event_manager import EventManager

__all__ = ["EventManager"]
