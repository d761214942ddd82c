"""The user as the API shows it to themself, the fields they may change, and the short
reference to a user that other people's (organisers') responses carry."""

import uuid

from ninja import Schema
from pydantic import ConfigDict, Field


class UserSchema(Schema):
    id: uuid.UUID
    email: str
    first_name: str
    last_name: str
    preferred_name: str
    display_name: str
    language: str
    timezone: str


class UserRefSchema(Schema):
    id: uuid.UUID
    email: str
    display_name: str


class ProfilePatchSchema(Schema):
    """Every field optional; only the fields sent are changed. Unknown fields → 422.

    Language and timezone are checked by the service (400 with `errors`), because
    their valid values live in settings and the timezone database, not in the schema.
    """

    model_config = ConfigDict(extra="forbid")

    first_name: str = Field("", max_length=150)
    last_name: str = Field("", max_length=150)
    preferred_name: str = Field("", max_length=150)
    language: str = Field("en", max_length=8)
    timezone: str = Field("UTC", max_length=64)
