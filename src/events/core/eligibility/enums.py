"""What the eligibility pipeline can answer: human reasons, their codes, and next steps."""

from enum import StrEnum

from django.utils.translation import gettext_noop


class Reasons(StrEnum):
    """Human, translatable refusal texts; each member's name (lower-cased) is its `reason_code`."""

    BLACKLISTED = gettext_noop("You cannot take part in this organisation's events.")
    EVENT_HAS_FINISHED = gettext_noop("This event has already finished.")
    EVENT_IS_NOT_OPEN = gettext_noop("This event is not open yet.")
    RSVP_DEADLINE_PASSED = gettext_noop("The RSVP deadline has passed.")
    REQUIRES_INVITATION = gettext_noop("This event requires an invitation.")
    MEMBERS_ONLY = gettext_noop("Only members of the organisation can take part in this event.")
    MEMBERSHIP_INACTIVE = gettext_noop("Your membership is not active.")
    EVENT_IS_FULL = gettext_noop("This event is full.")
    SPOTS_RESERVED_FOR_WAITLIST = gettext_noop("Spots are currently reserved for waitlist members.")
    ON_WAITLIST_WAITING_FOR_BATCH = gettext_noop("You are on the waitlist. Waiting for your turn.")
    NO_TICKETS_ON_SALE = gettext_noop("No tickets are on sale for this event right now.")
    SOLD_OUT = gettext_noop("Tickets for this event are sold out.")
    REQUIRES_TICKET = gettext_noop("This event needs a ticket; RSVPs are not taken.")
    DOES_NOT_REQUIRE_TICKET = gettext_noop("This event takes RSVPs; no tickets are sold.")

    @property
    def code(self) -> str:
        return self.name.lower()


class NextStep(StrEnum):
    WAIT_FOR_EVENT_TO_OPEN = "wait_for_event_to_open"
    BECOME_MEMBER = "become_member"
    JOIN_WAITLIST = "join_waitlist"
    WAIT_FOR_OPEN_SPOT = "wait_for_open_spot"
    RSVP = "rsvp"
    PURCHASE_TICKET = "purchase_ticket"


#: Refusals about seats: answered 409 wherever they are found (gate or locked check).
CAPACITY_REASON_CODES = frozenset(
    {
        Reasons.EVENT_IS_FULL.code,
        Reasons.SPOTS_RESERVED_FOR_WAITLIST.code,
        Reasons.ON_WAITLIST_WAITING_FOR_BATCH.code,
        Reasons.SOLD_OUT.code,
    }
)
