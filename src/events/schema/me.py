"""Items of the caller's own lists: /me/tickets, /me/rsvps, /me/waitlist."""

import uuid
from datetime import datetime

from ninja import Schema


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


class MyRSVPSchema(Schema):
    id: uuid.UUID
    event: MyEventSchema
    status: str


class MyWaitlistEntrySchema(Schema):
    """`offer` is always null for now: the seam where the caller's live offer will appear."""

    id: uuid.UUID
    event: MyEventSchema
    created_at: datetime
    position: int
    offer: None = None
