"""The advanced waitlist as organisers steer it, under /event-admin/{event_id} (docs/spec/waitlist-design.md).

`manage_event` for everything but the offers list, which `invite_to_event` may read too
(the same staff who see the queue). Every write is throttled and goes through one
service of `waitlist_service` / `waitlist_settings_service`, which lock the Event row
first and send offers (WAITLIST_SPOT_AVAILABLE) only after commit.

Refusals: 409 `pending_offer_exists`; 409 `capacity` (no seat free; `held_seats`);
409 `offers_not_applicable` (the event is not open, has started or has no capacity, or
the queue is closed); 409 `not_on_waitlist` (reactivating for someone who left); 400
for an `expires_at` that is missing without a window, not in the future, or after the
start; 404 for an offer or queue entry of another event, or an offer in the wrong state.
"""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import Pagination, WriteThrottle
from events.core.controllers.event_admin.event_admin_base import (
    ERRORS,
    EVENT_ADMIN_PREFIX,
    EventAdminController,
)
from events.models import Event, StaffPermission, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.schemas.settings_and_offers import (
    OfferCreateSchema,
    OfferReactivateSchema,
    OfferSchema,
    WaitlistSettingsSchema,
)
from events.waitlist.selectors import offers as offer_selectors
from events.waitlist.services import settings as waitlist_settings_service

#: The class-level permission; the offers list relaxes it to `invite_to_event`.
PERMISSION = StaffPermission.MANAGE_EVENT
LIST_PERMISSION = StaffPermission.INVITE_TO_EVENT


@api_controller(EVENT_ADMIN_PREFIX, auth=JWTAuth(), tags=["event admin"])
class EventAdminWaitlistOffersController(EventAdminController):
    # -- settings ----------------------------------------------------------------------
    @route.get("/{event_id}/waitlist-settings", response=WaitlistSettingsSchema)
    def get_settings(self, event_id: uuid.UUID) -> Event:
        return self._event(event_id, PERMISSION)

    @route.patch("/{event_id}/waitlist-settings", response={200: WaitlistSettingsSchema, **ERRORS})
    @throttle(WriteThrottle)
    def update_settings(self, event_id: uuid.UUID, payload: WaitlistSettingsSchema) -> Event:
        """Only the fields sent change; closing the queue revokes pending offers."""
        event = self._event(event_id, PERMISSION)
        return waitlist_settings_service.update_waitlist_settings(event.pk, payload.service_data())

    # -- offers ------------------------------------------------------------------------
    @route.get("/{event_id}/waitlist-offers", response=PaginatedResponseSchema[OfferSchema])
    @paginate(Pagination)
    def list_offers(
        self, event_id: uuid.UUID, status: WaitlistOffer.WaitlistOfferStatus | None = None
    ) -> QuerySet[WaitlistOffer]:
        """Newest first, optionally only one status."""
        event = self._event(event_id, LIST_PERMISSION)
        return offer_selectors.admin_offers(event.pk, status)

    @route.post("/{event_id}/waitlist-offers", response={201: OfferSchema, **ERRORS})
    @throttle(WriteThrottle)
    def create_offer(
        self, event_id: uuid.UUID, payload: OfferCreateSchema
    ) -> tuple[int, WaitlistOffer]:
        """Offer a seat to a queue member; `expires_at` defaults to now + the window."""
        event = self._event(event_id, PERMISSION)
        offer = waitlist_service.create_admin_offer(
            event.pk, payload.waitlist_entry_id, payload.expires_at
        )
        return 201, offer_selectors.admin_offer(offer.pk)

    @route.post(
        "/{event_id}/waitlist-offers/{offer_id}/revoke", response={200: OfferSchema, **ERRORS}
    )
    @throttle(WriteThrottle)
    def revoke_offer(self, event_id: uuid.UUID, offer_id: uuid.UUID) -> WaitlistOffer:
        """PENDING → REVOKED; the next batch is enqueued and the user soft-skipped."""
        event = self._event(event_id, PERMISSION)
        offer = waitlist_service.revoke_offer(event.pk, offer_id)
        return offer_selectors.admin_offer(offer.pk)

    @route.post(
        "/{event_id}/waitlist-offers/{offer_id}/reactivate", response={200: OfferSchema, **ERRORS}
    )
    @throttle(WriteThrottle)
    def reactivate_offer(
        self,
        event_id: uuid.UUID,
        offer_id: uuid.UUID,
        payload: OfferReactivateSchema | None = None,
    ) -> WaitlistOffer:
        """EXPIRED or REVOKED → PENDING with a new deadline, capacity-checked; no body = `{}`."""
        event = self._event(event_id, PERMISSION)
        expires_at = payload.expires_at if payload is not None else None
        offer = waitlist_service.reactivate_admin_offer(event.pk, offer_id, expires_at)
        return offer_selectors.admin_offer(offer.pk)


CONTROLLERS = [EventAdminWaitlistOffersController]
