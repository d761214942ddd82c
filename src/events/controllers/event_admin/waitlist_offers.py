"""The path docs/spec/waitlist-design.md names for the waitlist offers' admin routes; they
live in `events.waitlist.controllers.event_admin.waitlist_offers`."""

from events.waitlist.controllers.event_admin.waitlist_offers import CONTROLLERS

__all__ = ["CONTROLLERS"]
