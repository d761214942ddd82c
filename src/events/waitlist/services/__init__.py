"""The waitlist of docs/spec/waitlist-design.md: the queue, batched time-limited offers, and their lifecycle.

Every writer here locks the Event row first (docs/spec/domain.md lock order), then the offer rows;
side effects (processing passes, notifications) leave on commit. One module per concept
(docs/architecture/waitlist.md, "Where things live"); this package re-exports the names
callers use, so `waitlist_service.process_waitlist_for_event` keeps its seed path:

- `triggering`: `enqueue_waitlist_processing(event_id)`, called by every path that may
  free a seat, and the offer and expiry notifications, all sent after commit.
- `useful_offers`: the one rule of when an offer is of use (`offers_are_useful`, and the
  same as a filter), and its deadlines.
- `processing` (+ `offer_batches`): `process_waitlist_for_event(event_id)`, the single
  place batches are created.
- `admin_offers`: `create_admin_offer`, `reactivate_admin_offer`, `revoke_offer`
  (organiser overrides), `revoke_pending_offers(event, reason)` (closing the waitlist,
  cancelling the event).
- `claims`: `claim_offer_for_registration(event, user_id)`, the claim hook of RSVPs and
  tickets.
- `sweeps`: `expire_waitlist_offers()` / `nudge_open_waitlists()`, the hourly jobs.
- `offer_expiry`: `expire_event_offers(event_id, due)`, one event's lapsed offers at
  their deadline (the ETA task each batch schedules), then the next batch.
- `decline`: `decline_offer(user, event)`, the holder gives the seat back and stays queued.
- `membership`: `join_waitlist` / `leave_waitlist` (the user's own door to the queue),
  `remove_entry` (staff), `revoke_offer_of_removed_entry` (an entry going away).

Submodules import each other directly, never through this package.
"""

# The errors its services raise, which callers have caught as `waitlist_service.X`.
from events.waitlist.errors import NoLiveOffer, NotOnWaitlist, PendingOfferExists
from events.waitlist.services.admin_offers import (
    create_admin_offer,
    reactivate_admin_offer,
    revoke_offer,
    revoke_pending_offers,
)
from events.waitlist.services.claims import claim_offer_for_registration
from events.waitlist.services.decline import decline_offer
from events.waitlist.services.membership import (
    WaitlistJoin,
    join_waitlist,
    leave_waitlist,
    remove_entry,
    revoke_offer_of_removed_entry,
)
from events.waitlist.services.offer_expiry import EventExpiry, expire_event_offers
from events.waitlist.services.processing import (
    WaitlistProcessingResult,
    process_waitlist_for_event,
)
from events.waitlist.services.sweeps import (
    ExpirySweep,
    expire_waitlist_offers,
    nudge_open_waitlists,
)
from events.waitlist.services.triggering import enqueue_waitlist_processing
from events.waitlist.services.useful_offers import offers_are_useful

__all__ = [
    "EventExpiry",
    "ExpirySweep",
    "NoLiveOffer",
    "NotOnWaitlist",
    "PendingOfferExists",
    "WaitlistJoin",
    "WaitlistProcessingResult",
    "claim_offer_for_registration",
    "create_admin_offer",
    "decline_offer",
    "enqueue_waitlist_processing",
    "expire_event_offers",
    "expire_waitlist_offers",
    "join_waitlist",
    "leave_waitlist",
    "nudge_open_waitlists",
    "offers_are_useful",
    "process_waitlist_for_event",
    "reactivate_admin_offer",
    "remove_entry",
    "revoke_offer",
    "revoke_offer_of_removed_entry",
    "revoke_pending_offers",
]
