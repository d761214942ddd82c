"""Bodies of the caller's own attendance routes: my-status, RSVP, waitlist join."""

import uuid
from datetime import datetime

from ninja import Schema

from common.api import ErrorSchema


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


class MyStatusTicketSchema(Schema):
    id: uuid.UUID
    tier_id: uuid.UUID
    tier_name: str
    status: str
    holder_name: str
    created_at: datetime


class MyWaitlistSchema(Schema):
    position: int | None
    joined_at: datetime


class MyOfferSchema(Schema):
    """The caller's live offer (PENDING, not yet expired): a seat held for them until then."""

    id: uuid.UUID
    status: str
    expires_at: datetime
    is_cutoff_batch: bool


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
