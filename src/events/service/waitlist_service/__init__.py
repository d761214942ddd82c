"""The path docs/spec/waitlist-design.md names for the waitlist services
(`waitlist_service.process_waitlist_for_event`). The services live in
`events.waitlist.services` (the waitlist feature's package); this module re-exports every
name that package exports, the same objects, not copies."""

from events.waitlist import services as _services
from events.waitlist.services import *  # noqa: F403  (exactly `_services.__all__`)

__all__ = list(_services.__all__)
