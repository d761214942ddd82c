"""Online payment routes (docs/spec/api.md "Payments"): Stripe's webhook, the holder's refund, and
an organisation connecting its Stripe account.

The webhook has no auth, no CSRF (the API takes no cookies) and no throttle: Stripe
retries and bursts, and a refused delivery would be a lost payment. Its only gate is
the signature, checked before anything is read or recorded.
"""

import uuid
from typing import Any

from ninja_extra import ControllerBase, api_controller, route
from ninja_extra.throttling import throttle
from ninja_jwt.authentication import JWTAuth

from accounts.controllers.base import CallerController
from common.api import WriteThrottle, error_responses
from events.core.controllers.organization_admin.base import (
    ADMIN_PREFIX,
    OrganizationAdminController,
)
from events.models import StaffPermission, StripeConnection
from events.ticketing.schemas.payment import (
    StripeAccountSchema,
    StripeConnectionSchema,
    WebhookAnswerSchema,
)
from events.ticketing.schemas.ticket import TicketSchema
from events.ticketing.services import payments as payment_service

ERRORS = error_responses(400, 403, 404, 409, 502)


@api_controller("/payments", auth=None, tags=["payments"])
class StripeWebhookController(ControllerBase):
    @route.post(
        "/stripe/webhook",
        response={200: WebhookAnswerSchema, **error_responses(400)},
        openapi_extra={
            "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}}
        },
    )
    def stripe_webhook(self) -> dict[str, bool]:
        """Stripe's events, signed with the endpoint secret (`Stripe-Signature`); 400
        without a valid signature (`invalid_signature`) or when a field Encore reads has
        another type than Stripe's (`invalid`); 200 once recorded, also for a duplicate."""
        assert self.context is not None and self.context.request is not None
        request = self.context.request
        result = payment_service.handle_webhook(
            request.body, request.headers.get("Stripe-Signature")
        )
        return {"received": True, "duplicate": result.duplicate}


@api_controller("/events", auth=JWTAuth(), tags=["tickets"])
class HolderRefundController(CallerController):
    @route.post("/{event_id}/tickets/{ticket_id}/refund", response={202: TicketSchema, **ERRORS})
    @throttle(WriteThrottle)
    def refund_own_ticket(self, event_id: uuid.UUID, ticket_id: uuid.UUID) -> tuple[int, Any]:
        """Refund your own ticket paid online, in full, while its tier allows it (before
        its `refund_deadline`). 202: the ticket stays valid until Stripe confirms."""
        request = payment_service.refund_by_holder(self._caller(), event_id, ticket_id)
        return 202, request.ticket


@api_controller(ADMIN_PREFIX, auth=JWTAuth(), tags=["organization admin"])
class StripeConnectionController(OrganizationAdminController):
    @route.get("/{slug}/stripe", response={200: StripeConnectionSchema, **ERRORS})
    def stripe_connection(self, slug: str) -> StripeConnection:
        organization = self._organization(slug, StaffPermission.EDIT_ORGANIZATION)
        return StripeConnection.objects.get(organization=organization)

    @route.put("/{slug}/stripe", response={200: StripeConnectionSchema, **ERRORS})
    @throttle(WriteThrottle)
    def connect_stripe(self, slug: str, payload: StripeAccountSchema) -> StripeConnection:
        """Connect the organisation's Stripe account by its id (`acct_…`); Stripe is asked
        that it exists and can take charges (else 400 `invalid_stripe_account`)."""
        organization = self._organization(slug, StaffPermission.EDIT_ORGANIZATION)
        return payment_service.connect_stripe_account(organization, payload.account_id)

    @route.delete("/{slug}/stripe", response={204: None, **ERRORS})
    @throttle(WriteThrottle)
    def disconnect_stripe(self, slug: str) -> tuple[int, None]:
        organization = self._organization(slug, StaffPermission.EDIT_ORGANIZATION)
        payment_service.disconnect_stripe_account(organization)
        return 204, None


CONTROLLERS = [StripeWebhookController, HolderRefundController, StripeConnectionController]
