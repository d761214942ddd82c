"""The caller's own attendance at one event: status, RSVP, the waitlist queue.

Every route needs a token and acts on an event the caller may see
(`get_participation_event`: 404 otherwise). Writes are throttled per user.
"""

import uuid
from typing import Literal

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.controllers.base import CallerController
from common.api import ErrorSchema, WriteThrottle, error_responses
from events.core.eligibility.my_status import MyEventStatus, my_event_status
from events.core.schemas.attendance import (
    EligibilityErrorSchema,
    MyStatusSchema,
    RSVPBodySchema,
    RSVPSchema,
    WaitlistEntrySchema,
    WaitlistJoinBodySchema,
)
from events.core.selectors.event import get_participation_event
from events.core.services.event_manager import EventManager
from events.models import EventRSVP
from events.waitlist import services as waitlist_service

RSVPAnswer = Literal["yes", "no", "maybe"]

ERRORS = error_responses(401, 404, 429, 503)


@api_controller("/events", auth=JWTAuth(), tags=["attendance"])
class AttendanceController(CallerController):
    @route.get("/{event_id}/my-status", response={200: MyStatusSchema, **error_responses(401, 404)})
    def my_status(self, event_id: uuid.UUID) -> MyEventStatus:
        user = self._caller()
        return my_event_status(user, get_participation_event(user, event_id))

    @route.post(
        "/{event_id}/rsvp/{answer}",
        response={
            200: RSVPSchema,
            400: EligibilityErrorSchema,
            409: EligibilityErrorSchema,
            **ERRORS,
        },
    )
    @throttle(WriteThrottle)
    def rsvp(
        self, event_id: uuid.UUID, answer: RSVPAnswer, payload: RSVPBodySchema | None = None
    ) -> EventRSVP:
        user = self._caller()
        sent = payload is not None and "guests" in payload.model_fields_set
        guests = payload.guests if payload is not None and sent else None
        manager = EventManager(user, get_participation_event(user, event_id))
        return manager.rsvp(answer, guests=guests)

    @route.post(
        "/{event_id}/waitlist/join",
        response={
            200: WaitlistEntrySchema,
            201: WaitlistEntrySchema,
            400: EligibilityErrorSchema | ErrorSchema,
            409: ErrorSchema,
            **ERRORS,
        },
    )
    @throttle(WriteThrottle)
    def join_waitlist(
        self, event_id: uuid.UUID, payload: WaitlistJoinBodySchema | None = None
    ) -> tuple[int, waitlist_service.WaitlistJoin]:
        user = self._caller()
        body = payload or WaitlistJoinBodySchema()
        joined = waitlist_service.join_waitlist(
            user,
            get_participation_event(user, event_id),
            party_size=body.party_size,
            tier_id=body.tier_id,
        )
        return (201 if joined.created else 200), joined

    @route.post("/{event_id}/waitlist/decline", response={200: MyStatusSchema, **ERRORS})
    @throttle(WriteThrottle)
    def decline_waitlist_offer(self, event_id: uuid.UUID) -> MyEventStatus:
        """Decline the caller's live offer and stay queued (rotated behind, as after a
        lapse); the seat goes on at once. 404 `no_live_offer` without one."""
        user = self._caller()
        event = get_participation_event(user, event_id)
        waitlist_service.decline_offer(user, event)
        return my_event_status(user, event)

    @route.delete("/{event_id}/waitlist/leave", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def leave_waitlist(self, event_id: uuid.UUID) -> tuple[int, None]:
        user = self._caller()
        waitlist_service.leave_waitlist(user, get_participation_event(user, event_id))
        return 204, None


CONTROLLERS = [AttendanceController]
