"""The caller's in-app inbox (/notifications) and preferences (/notification-preferences)."""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.controllers.base import CallerController
from common.api import ErrorSchema, Pagination, WriteThrottle
from notifications.models import Notification, NotificationPreference
from notifications.schema.notifications import (
    CountSchema,
    NotificationSchema,
    PreferencesPatchSchema,
    PreferencesSchema,
)
from notifications.service import inbox, preferences


@api_controller("/notifications", auth=JWTAuth(), tags=["notifications"])
class NotificationsController(CallerController):
    @route.get("", response=PaginatedResponseSchema[NotificationSchema])
    @paginate(Pagination)
    def list_notifications(self, unread: bool | None = None) -> QuerySet[Notification]:
        """Own notifications, newest first; `?unread=true` only unread, `false` only read."""
        return inbox.notifications_for(self._caller(), unread=unread)

    @route.get("/unread-count", response=CountSchema)
    def unread_count(self) -> dict[str, int]:
        return {"count": inbox.unread_count(self._caller())}

    @route.post("/mark-all-read", response=CountSchema)
    @throttle(WriteThrottle)
    def mark_all_read(self) -> dict[str, int]:
        return {"count": inbox.mark_all_read(self._caller())}

    @route.post(
        "/{notification_id}/mark-read", response={200: NotificationSchema, 404: ErrorSchema}
    )
    @throttle(WriteThrottle)
    def mark_read(self, notification_id: uuid.UUID) -> Notification:
        return inbox.mark_read(self._caller(), notification_id)


@api_controller("/notification-preferences", auth=JWTAuth(), tags=["notifications"])
class NotificationPreferencesController(CallerController):
    @route.get("", response=PreferencesSchema)
    def get_preferences(self) -> NotificationPreference:
        return preferences.get_preferences(self._caller())

    @route.patch("", response={200: PreferencesSchema, 400: ErrorSchema})
    @throttle(WriteThrottle)
    def update_preferences(self, payload: PreferencesPatchSchema) -> NotificationPreference:
        return preferences.update_preferences(
            self._caller(), payload.model_dump(exclude_unset=True)
        )


CONTROLLERS = [NotificationsController, NotificationPreferencesController]
