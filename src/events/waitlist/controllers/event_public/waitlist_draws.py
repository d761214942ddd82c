"""The lottery's records: GET /events/{event_id}/waitlist/draws[/{batch_id}] (ADR 0018).

Read-only and answered from the stored `WaitlistDraw` rows; who may read them is the
selector's rule (queue members, past lottery offer holders, `invite_to_event` staff;
404 for anyone else). A token is optional only so that an anonymous caller gets that
same 404 instead of a 401 that would tell the route apart from an unknown event.
"""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route

from accounts.controllers.base import CallerController
from common.api import error_responses, optional_jwt_auth
from events.models import WaitlistDraw
from events.waitlist.schemas.draws import WaitlistDrawSchema
from events.waitlist.selectors.draws import event_draw, event_draws

ERRORS = error_responses(401, 404)


@api_controller("/events", auth=optional_jwt_auth(), tags=["waitlist draws"])
class WaitlistDrawsController(CallerController):
    @route.get("/{event_id}/waitlist/draws", response={200: list[WaitlistDrawSchema], **ERRORS})
    def list_draws(self, event_id: uuid.UUID) -> QuerySet[WaitlistDraw]:
        """Every lottery batch of the event, newest first."""
        return event_draws(self._viewer(), event_id)

    @route.get(
        "/{event_id}/waitlist/draws/{batch_id}", response={200: WaitlistDrawSchema, **ERRORS}
    )
    def get_draw(self, event_id: uuid.UUID, batch_id: uuid.UUID) -> WaitlistDraw:
        """One lottery batch: its seed, what it read, what it chose; recompute it with
        `replay_draw` (docs/architecture/waitlist-lottery.md)."""
        return event_draw(self._viewer(), event_id, batch_id)


CONTROLLERS = [WaitlistDrawsController]
