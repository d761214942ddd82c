"""Tiers, tickets and the box office of one event, under /event-admin/{event_id}.

Every route goes through `access_event_admin` (404 invisible, 403 without the
permission); a tier or ticket of another event is 404. `manage_tickets` everywhere,
`check_in_attendees` for check-in.
"""

import uuid

from django.db.models import QuerySet
from ninja_extra import api_controller, route
from ninja_extra.pagination import PaginatedResponseSchema, paginate
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from common.api import Pagination, WriteThrottle, error_responses
from events.core.controllers.event_admin.event_admin_base import (
    EVENT_ADMIN_PREFIX,
    EventAdminController,
)
from events.core.schemas.choices import TicketStatus
from events.models import StaffPermission, Ticket, TicketTier
from events.ticketing.schemas.payment import RefundSchema
from events.ticketing.schemas.ticket import (
    AdminTicketSchema,
    BoxOfficeSaleSchema,
    TicketSchema,
    TierAdminSchema,
    TierCreateSchema,
    TierUpdateSchema,
)
from events.ticketing.selectors import tickets as ticket_selectors
from events.ticketing.services import cancellation as cancellation_service
from events.ticketing.services import payments as payment_service
from events.ticketing.services import ticket_admin as ticket_admin_service
from events.ticketing.services import tiers as ticket_tier_service

ERRORS = error_responses(400, 403, 404, 409)
MANAGE = StaffPermission.MANAGE_TICKETS


@api_controller(EVENT_ADMIN_PREFIX, auth=JWTAuth(), tags=["event admin: tickets"])
class EventTicketsAdminController(EventAdminController):
    # -- tiers -----------------------------------------------------------------------------
    @route.get("/{event_id}/ticket-tiers", response=list[TierAdminSchema])
    def list_tiers(self, event_id: uuid.UUID) -> QuerySet[TicketTier]:
        return ticket_selectors.event_tiers(self._event(event_id, MANAGE))

    @route.post("/{event_id}/ticket-tiers", response={201: TierAdminSchema, **ERRORS})
    @throttle(WriteThrottle)
    def create_tier(self, event_id: uuid.UUID, payload: TierCreateSchema) -> tuple[int, TicketTier]:
        event = self._event(event_id, MANAGE)
        return 201, ticket_tier_service.create_tier(event, payload.model_dump())

    @route.patch("/{event_id}/ticket-tiers/{tier_id}", response={200: TierAdminSchema, **ERRORS})
    @throttle(WriteThrottle)
    def update_tier(
        self, event_id: uuid.UUID, tier_id: uuid.UUID, payload: TierUpdateSchema
    ) -> TicketTier:
        event = self._event(event_id, MANAGE)
        return ticket_tier_service.update_tier(
            event, tier_id, payload.model_dump(exclude_unset=True)
        )

    @route.delete("/{event_id}/ticket-tiers/{tier_id}", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def delete_tier(self, event_id: uuid.UUID, tier_id: uuid.UUID) -> tuple[int, None]:
        ticket_tier_service.delete_tier(self._event(event_id, MANAGE), tier_id)
        return 204, None

    # -- tickets ---------------------------------------------------------------------------
    @route.get("/{event_id}/tickets", response=PaginatedResponseSchema[AdminTicketSchema])
    @paginate(Pagination)
    def list_tickets(
        self, event_id: uuid.UUID, status: TicketStatus | None = None
    ) -> QuerySet[Ticket]:
        return ticket_selectors.event_tickets(self._event(event_id, MANAGE), status)

    @route.post(
        "/{event_id}/tickets/{ticket_id}/confirm-payment", response={200: TicketSchema, **ERRORS}
    )
    @throttle(WriteThrottle)
    def confirm_payment(self, event_id: uuid.UUID, ticket_id: uuid.UUID) -> Ticket:
        return ticket_admin_service.confirm_payment(self._event(event_id, MANAGE), ticket_id)

    @route.post("/{event_id}/tickets/{ticket_id}/cancel", response={200: TicketSchema, **ERRORS})
    @throttle(WriteThrottle)
    def cancel_ticket(self, event_id: uuid.UUID, ticket_id: uuid.UUID) -> Ticket:
        return cancellation_service.cancel_ticket_by_staff(self._event(event_id, MANAGE), ticket_id)

    @route.post(
        "/{event_id}/tickets/{ticket_id}/refund",
        response={200: TicketSchema, 202: TicketSchema, **ERRORS, **error_responses(502)},
    )
    @throttle(WriteThrottle)
    def refund_ticket(
        self, event_id: uuid.UUID, ticket_id: uuid.UUID, payload: RefundSchema | None = None
    ) -> tuple[int, Ticket]:
        """A ticket paid online: Stripe refunds `amount` (default: all that is left of
        its price) → 202, and the seat frees when Stripe confirms. Any other ticket: the
        money went back outside Encore, the ticket is cancelled at once → 200."""
        event = self._event(event_id, MANAGE)
        amount = payload.amount if payload is not None else None
        ticket = ticket_selectors.event_tickets(event).filter(pk=ticket_id).first()
        if ticket is not None and payment_service.is_paid_online(ticket):
            request = payment_service.refund_by_organiser(event, ticket_id, self._caller(), amount)
            return 202, request.ticket
        return 200, cancellation_service.refund_ticket_offline(event, ticket_id)

    @route.post("/{event_id}/tickets/{ticket_id}/check-in", response={200: TicketSchema, **ERRORS})
    @throttle(WriteThrottle)
    def check_in(self, event_id: uuid.UUID, ticket_id: uuid.UUID) -> Ticket:
        event = self._event(event_id, StaffPermission.CHECK_IN_ATTENDEES)
        return ticket_admin_service.check_in(event, ticket_id)

    # -- box office ------------------------------------------------------------------------
    @route.post("/{event_id}/box-office/sell", response={201: TicketSchema, **ERRORS})
    @throttle(WriteThrottle)
    def sell(self, event_id: uuid.UUID, payload: BoxOfficeSaleSchema) -> tuple[int, Ticket]:
        event = self._event(event_id, MANAGE)
        ticket = ticket_admin_service.sell_at_box_office(
            event, self._caller(), payload.user_id, payload.tier_id, payload.holder_name
        )
        return 201, ticket


CONTROLLERS = [EventTicketsAdminController]
