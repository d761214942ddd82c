"""Request and response bodies of the organisation routes (public and admin).

Request schemas check shapes and types (a violation is a 422); the services check
values against the models (a violation is a 400 `invalid` with field errors).
PATCH bodies forbid unknown fields, so a typo never turns into a silent no-op.
"""

import uuid
from datetime import datetime

from ninja import Field, Schema
from pydantic import ConfigDict, StrictBool

from accounts.schema.user import UserRefSchema
from events.models import OrganizationStaff, StaffPermission


class OrganizationSchema(Schema):
    id: uuid.UUID
    name: str
    slug: str
    description: str
    timezone: str
    visibility: str
    accept_membership_requests: bool
    owner_id: uuid.UUID
    created_at: datetime


class OrganizationCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., max_length=150)
    slug: str | None = Field(None, max_length=160)
    timezone: str | None = Field(None, max_length=64)
    description: str = ""


class OrganizationUpdateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, max_length=150)
    description: str | None = None
    timezone: str | None = Field(None, max_length=64)
    visibility: str | None = None
    accept_membership_requests: StrictBool | None = None


class StaffSchema(Schema):
    id: uuid.UUID
    user: UserRefSchema
    permissions: dict[str, bool]
    created_at: datetime

    @staticmethod
    def resolve_permissions(obj: OrganizationStaff) -> dict[str, bool]:
        """The effective map: stored values over the defaults, every key present."""
        return {key: obj.has_permission(key) for key in StaffPermission.values}


class StaffCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    user_id: uuid.UUID
    permissions: dict[str, StrictBool] | None = None


class StaffUpdateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    permissions: dict[str, StrictBool]


class MemberSchema(Schema):
    id: uuid.UUID
    user: UserRefSchema
    status: str
    created_at: datetime


class MemberCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    user_id: uuid.UUID
    status: str = "active"


class MemberUpdateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    status: str


class MembershipRequestCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    message: str = Field("", max_length=2000)


class MembershipRequestSchema(Schema):
    id: uuid.UUID
    organization_id: uuid.UUID
    user: UserRefSchema
    status: str
    message: str
    decided_at: datetime | None
    created_at: datetime


class BlacklistSchema(Schema):
    id: uuid.UUID
    user: UserRefSchema | None
    email: str
    reason: str
    created_at: datetime


class BlacklistCreateSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    user_id: uuid.UUID | None = None
    email: str | None = Field(None, max_length=254)
    reason: str = ""


class FollowBodySchema(Schema):
    model_config = ConfigDict(extra="forbid")

    notify_new_events: StrictBool | None = None


class FollowSchema(Schema):
    notify_new_events: bool
    is_archived: bool
    created_at: datetime
