"""Bodies of the caller's own attendance routes: my-status, RSVP, waitlist join."""

import uuid
from datetime import datetime

from ninja import Field, Schema
from pydantic import ConfigDict, StrictInt

from common.api import ErrorSchema
from events.core.models.rsvp import RSVP_GUESTS_MAX


class EligibilitySchema(Schema):
    """`EventUserEligibility` as the API returns it."""

    allowed: bool
    event_id: uuid.UUID
    reason: str | None
    reason_code: str | None
    next_step: str | None
    pending_offers_count: int | None
    next_batch_at: datetime | None
    waitlist_position: int | None
    active_offer_expires_at: datetime | None


# Bases in this order put `detail` and `code` first, then the fields of EligibilitySchema.
class EligibilityErrorSchema(EligibilitySchema, ErrorSchema):
    """A refusal of the pipeline: `detail` = reason, `code` = reason_code, plus every field."""


class RSVPStatusSchema(Schema):
    status: str


class RSVPSchema(RSVPStatusSchema):
    event_id: uuid.UUID
    guests: int = Field(0, description="People the attendee brings; a YES takes 1 + guests seats.")


class MyStatusTicketSchema(Schema):
    id: uuid.UUID
    tier_id: uuid.UUID
    tier_name: str
    status: str
    holder_name: str
    created_at: datetime


class MyWaitlistEtaSchema(Schema):
    """When an offer could come (docs/architecture/waitlist-eta-and-stats.md).

    `eta_if_all_ahead_pass` is the latest time an offer reaches the caller if every live
    offer and every member ahead let theirs lapse; null with `reason` when no such bound
    exists: `depends_on_cancellations` (no seat in play), `party_larger_than_seats_in_play`,
    `blocked_by_larger_party` (strict policy: a party ahead can never fit),
    `smaller_parties_may_go_first` (fill policy, a party of more than one),
    `depends_on_the_draw` (lottery, after a lapse), `event_starts_first` (no offer before
    the start or the RSVP deadline), `no_automatic_offers` (queue closed or passive, event
    not open, unlimited capacity, or the final all-hands batch already sent). `reason` is
    null whenever the time is set.
    """

    places_ahead: int = Field(description="Entries ahead in selection order without a live offer")
    seats_in_play: int = Field(description="Free seats + seats held by live non-cutoff offers")
    eta_if_all_ahead_pass: datetime | None
    reason: str | None


class MyWaitlistSchema(Schema):
    """The caller's queue entry; `eta` is null while they hold a live offer."""

    position: int | None
    joined_at: datetime
    party_size: int
    tier_id: uuid.UUID | None
    token: str = Field(description="The entry's lottery ticket, 16 hex digits (see the draws)")
    eta: MyWaitlistEtaSchema | None


class MyOfferSchema(Schema):
    """The caller's live offer (PENDING, not yet expired): a seat held for them until then."""

    id: uuid.UUID
    status: str
    expires_at: datetime
    is_cutoff_batch: bool
    seats: int = Field(1, description="Seats held: the caller's party.")
    tier_id: uuid.UUID | None = Field(None, description="The ticket tier it holds; null = any.")
    declined_at: datetime | None = None


class MyStatusSchema(Schema):
    """`waitlist.position` is null while the caller holds a live offer (then `offer` is set)."""

    eligibility: EligibilitySchema
    rsvp: RSVPStatusSchema | None
    tickets: list[MyStatusTicketSchema]
    waitlist: MyWaitlistSchema | None
    offer: MyOfferSchema | None


class WaitlistEntrySchema(Schema):
    event_id: uuid.UUID
    position: int | None
    joined_at: datetime
    party_size: int = 1
    tier_id: uuid.UUID | None = None


class WaitlistJoinBodySchema(Schema):
    """Both optional: an empty body (or none) queues a party of one for the whole event."""

    model_config = ConfigDict(extra="forbid")

    party_size: StrictInt = Field(
        default=1,
        ge=1,
        description="Seats to queue for, up to the event's waitlist_max_party_size "
        "(over it: 400 party_too_large).",
    )
    tier_id: uuid.UUID | None = Field(
        default=None,
        description="Queue for one ticket tier of this event (ticketed events only; "
        "an RSVP event: 400 invalid; another event's tier: 404).",
    )


class RSVPBodySchema(Schema):
    """`guests` only counts for a YES: it then takes 1 + guests seats."""

    model_config = ConfigDict(extra="forbid")

    guests: StrictInt = Field(
        default=0, ge=0, le=RSVP_GUESTS_MAX, description="People the attendee brings (0..9)."
    )
