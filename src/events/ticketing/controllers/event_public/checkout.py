"""Buying and giving back tickets: POST /events/{event_id}/checkout and
POST /events/{event_id}/tickets/{ticket_id}/cancel."""

import uuid
from typing import Any

from ninja_extra import api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.controllers.base import CallerController
from common.api import WriteThrottle, error_responses
from events.core.selectors.access import get_visible_event
from events.models import Ticket
from events.ticketing.schemas.ticket import CheckoutResultSchema, CheckoutSchema, TicketSchema
from events.ticketing.services import cancellation as cancellation_service
from events.ticketing.services import payments as payment_service
from events.ticketing.services.batch_tickets import CartItem

ERRORS = error_responses(400, 404, 409, 502)


@api_controller("/events", auth=JWTAuth(), tags=["tickets"])
class CheckoutController(CallerController):
    @route.post("/{event_id}/checkout", response={201: CheckoutResultSchema, **ERRORS})
    @throttle(WriteThrottle)
    def checkout(self, event_id: uuid.UUID, payload: CheckoutSchema) -> tuple[int, dict[str, Any]]:
        """Buy a cart of tickets (several tiers, several each); all or nothing.

        Gate refusals answer 400, "no seat" refusals 409 (`event_is_full`, `sold_out`,
        ...), both with the eligibility fields beside `detail` and `code`. A cart with
        tiers paid online answers `payment: {checkout_url, expires_at}`: its tickets are
        pending (holding their seats) until Stripe reports the payment.
        """
        user = self._caller()
        event = get_visible_event(user, event_id)
        items = [
            CartItem(
                tier_id=item.tier_id,
                count=item.count,
                holder_names=tuple(item.holder_names) if item.holder_names is not None else None,
            )
            for item in payload.items
        ]
        result = payment_service.checkout(event, user, items)
        return 201, {"tickets": result.tickets, "payment": result.payment}

    @route.post("/{event_id}/tickets/{ticket_id}/cancel", response={200: TicketSchema, **ERRORS})
    @throttle(WriteThrottle)
    def cancel_ticket(self, event_id: uuid.UUID, ticket_id: uuid.UUID) -> Ticket:
        """Give back one of your own tickets; anyone else's is 404."""
        return cancellation_service.cancel_ticket_by_user(
            self._caller(), ticket_id, event_id=event_id
        )


CONTROLLERS = [CheckoutController]
