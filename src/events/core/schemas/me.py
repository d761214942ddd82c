"""Items of the caller's own lists: /me/tickets, /me/rsvps, /me/waitlist."""

import uuid
from datetime import datetime

from ninja import Schema

from events.core.schemas.attendance import MyOfferSchema
from events.core.selectors.me import own_live_offer
from events.models import EventWaitList, Ticket, WaitlistOffer
from events.ticketing.schemas.payment import TicketPaymentSchema, ticket_payment


class MyEventSchema(Schema):
    id: uuid.UUID
    name: str
    start: datetime
    timezone: str


class MyTierSchema(Schema):
    id: uuid.UUID
    name: str


class MyTicketSchema(Schema):
    id: uuid.UUID
    event: MyEventSchema
    tier: MyTierSchema
    status: str
    holder_name: str
    created_at: datetime
    payment: TicketPaymentSchema | None = None

    @staticmethod
    def resolve_payment(obj: Ticket) -> dict[str, object] | None:
        return ticket_payment(obj)


class MyRSVPSchema(Schema):
    id: uuid.UUID
    event: MyEventSchema
    status: str


class MyWaitlistEntrySchema(Schema):
    """`position` is null while `offer` (the caller's live offer for that event) is set."""

    id: uuid.UUID
    event: MyEventSchema
    created_at: datetime
    position: int | None
    offer: MyOfferSchema | None

    @staticmethod
    def resolve_offer(obj: EventWaitList) -> WaitlistOffer | None:
        return own_live_offer(obj)  # prefetched for the whole page
