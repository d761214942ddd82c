"""Venue bodies of `/organization-admin/{slug}/venues`."""

import uuid

from ninja import Field, Schema
from pydantic import ConfigDict

MAX_CAPACITY = 2_147_483_647  # the largest value every supported database stores


class VenueSchema(Schema):
    id: uuid.UUID
    name: str
    address: str
    capacity: int | None


class VenueCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., max_length=150)
    capacity: int | None = Field(None, ge=0, le=MAX_CAPACITY)
    address: str = Field("", max_length=255)


class VenueUpdateSchema(Schema):
    """Only the fields sent change; `capacity: null` means the venue sets no limit."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, max_length=150)
    capacity: int | None = Field(None, ge=0, le=MAX_CAPACITY)
    address: str | None = Field(None, max_length=255)
