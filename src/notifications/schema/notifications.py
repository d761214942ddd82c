"""The inbox and the preferences as the API shows them, and the preference fields one may change."""

import uuid
from datetime import datetime
from typing import Annotated, Any

from ninja import Schema
from pydantic import ConfigDict, Field

from common.openapi import inline_enum
from notifications.models import NotificationDelivery

DeliveryStatus = Annotated[
    NotificationDelivery.Status, inline_enum(NotificationDelivery.Status, "DeliveryStatus")
]


class NotificationSchema(Schema):
    id: uuid.UUID
    notification_type: str
    title: str
    body: str
    context: dict[str, Any]
    read_at: datetime | None
    created_at: datetime


class CountSchema(Schema):
    count: int


class PreferencesSchema(Schema):
    """`type_settings` maps a type name to `{"enabled": bool, "channels"?: [channel, ...]}`."""

    silence_all: bool
    enabled_channels: list[str]
    type_settings: dict[str, Any]
    telegram_chat_id: str


class TypeSettingPatchSchema(Schema):
    """One type's override; `channels` omitted or null means "my enabled channels"."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    channels: list[str] | None = Field(None, max_length=20)


class PreferencesPatchSchema(Schema):
    """Only the fields sent change. Unknown fields or wrong types → 422.

    Channel and type names are plain strings here and checked by the service (400 with
    `errors`), so an unknown name gets the field-validation answer docs/spec/api.md asks for.
    `type_settings` is merged per type; a type sent as null goes back to the defaults.
    """

    model_config = ConfigDict(extra="forbid")

    silence_all: bool = False
    enabled_channels: list[str] = Field(default_factory=list, max_length=20)
    type_settings: dict[str, TypeSettingPatchSchema | None] = Field(default_factory=dict)
    telegram_chat_id: str = Field("", max_length=64)


class DeliveryRecipientSchema(Schema):
    id: uuid.UUID
    display_name: str


class DeliverySchema(Schema):
    """One channel's delivery of a notification about the event, as its organiser sees it.
    `error` says why the last attempt failed; `next_attempt_at` is null once a failed
    delivery is given up."""

    id: uuid.UUID
    notification_type: str = Field(alias="notification.notification_type")
    recipient: DeliveryRecipientSchema = Field(alias="notification.user")
    channel: str
    status: str
    attempts: int
    error: str
    next_attempt_at: datetime | None
    sent_at: datetime | None
    created_at: datetime
    updated_at: datetime
