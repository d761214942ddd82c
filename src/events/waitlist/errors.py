"""Errors of joining, leaving and declining on the waitlist (stable codes, docs/spec/api.md shape)."""

from common.errors import Conflict, EncoreError


class WaitlistClosed(EncoreError):
    default_code = "waitlist_closed"
    default_detail = "The waitlist of this event is not open."


class AlreadyAttending(Conflict):
    default_code = "already_attending"
    default_detail = "You are already attending this event."


class CapacityAvailable(Conflict):
    default_code = "capacity_available"
    default_detail = "There is room at this event: register instead of joining the waitlist."


class PendingOfferExists(Conflict):
    default_code = "pending_offer_exists"
    default_detail = "This user already holds a pending offer for this event."


class OfferWouldOvercommit(Conflict):
    """The waitlist design's ValueError("capacity") of the admin overrides, as a 409.

    The message says why no seat is free: taken by attendees, or held by pending offers
    (`held_seats` in the payload), and only in that case suggests revoking one; a full
    event with nothing pending has nothing to revoke.
    """

    default_code = "capacity"
    default_detail = "No seat is free: every seat is taken."
    HELD_DETAIL = (
        "No seat is free: every seat is taken or held by a pending offer; "
        "revoke a pending offer first."
    )

    @classmethod
    def with_held(cls, held_seats: int) -> "OfferWouldOvercommit":
        detail = cls.HELD_DETAIL if held_seats else cls.default_detail
        return cls(detail, extra={"held_seats": held_seats})


class NotOnWaitlist(Conflict):
    default_code = "not_on_waitlist"
    default_detail = "The user is no longer on the waitlist of this event."


class OffersNotApplicable(Conflict):
    default_code = "offers_not_applicable"
    default_detail = (
        "Offers are issued only for open, future events with a capacity and an open waitlist."
    )


class NoLiveOffer(EncoreError):
    """Declining needs a live offer (PENDING, before its deadline) of the caller's own.

    A 404 of its own code rather than `NotFound`: the caller and the event exist, what is
    missing is the offer, and the web page shows it as a refusal in its status region
    (`NotFound` would be the 404 page)."""

    status_code = 404
    default_code = "no_live_offer"
    default_detail = "You hold no live offer for this event."


class PartyTooLarge(EncoreError):
    """A party over the event's `waitlist_max_party_size` (docs/spec/api.md "Waitlist, second round")."""

    default_code = "party_too_large"
    default_detail = "This party is larger than the event lets one member queue for."
