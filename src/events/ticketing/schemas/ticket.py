"""Bodies of ticket routes: checkout, ticket cancel, tiers and tickets in event admin."""

import uuid
from datetime import datetime
from decimal import Decimal
from typing import Annotated

from ninja import Field, Schema
from pydantic import ConfigDict, StringConstraints

from common.http.fields import Instant
from events.core.schemas.choices import TicketStatus
from events.models import Ticket, TicketTier
from events.ticketing.schemas.payment import (
    CheckoutPaymentSchema,
    TicketPaymentSchema,
    ticket_payment,
)

MAX_INT = 2_147_483_647  # the largest value every supported database stores
HolderName = Annotated[str, StringConstraints(max_length=200)]


# -- input -----------------------------------------------------------------------------
class CartItemSchema(Schema):
    """One line of a cart. `count` ≥ 1 and the cart's shape are checked by the service (400)."""

    model_config = ConfigDict(extra="forbid")

    tier_id: uuid.UUID
    count: int = Field(..., le=MAX_INT)
    holder_names: list[HolderName] | None = None


class CheckoutSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    items: list[CartItemSchema]


class TierCreateSchema(Schema):
    """Model rules (price ≥ 0, digits, unique name, window order) answer 400 `invalid`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., min_length=1, max_length=100)
    description: str = ""
    price: Decimal = Decimal("0")
    currency: str = Field("EUR", pattern=r"^[A-Z]{3}$")
    payment_method: TicketTier.PaymentMethod = TicketTier.PaymentMethod.FREE
    total_quantity: int | None = Field(None, ge=0, le=MAX_INT)
    sales_start_at: Instant | None = None
    sales_end_at: Instant | None = None
    max_tickets_per_user: int | None = Field(None, ge=1, le=MAX_INT)
    payment_due_hours: int = Field(72, ge=1, le=MAX_INT)
    fee: Decimal = Decimal("0")
    tax_rate: Decimal = Decimal("0")
    refund_deadline: Instant | None = None


class TierUpdateSchema(Schema):
    """Only the fields sent change; `total_quantity: null` makes the tier unlimited."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=100)
    description: str | None = None
    price: Decimal | None = None
    currency: str | None = Field(None, pattern=r"^[A-Z]{3}$")
    payment_method: TicketTier.PaymentMethod | None = None
    total_quantity: int | None = Field(None, ge=0, le=MAX_INT)
    sales_start_at: Instant | None = None
    sales_end_at: Instant | None = None
    max_tickets_per_user: int | None = Field(None, ge=1, le=MAX_INT)
    payment_due_hours: int | None = Field(None, ge=1, le=MAX_INT)
    fee: Decimal | None = None
    tax_rate: Decimal | None = None
    refund_deadline: Instant | None = None


class BoxOfficeSaleSchema(Schema):
    model_config = ConfigDict(extra="forbid")

    user_id: uuid.UUID
    tier_id: uuid.UUID
    holder_name: HolderName | None = None


# -- output ----------------------------------------------------------------------------
class TicketSchema(Schema):
    id: uuid.UUID
    event_id: uuid.UUID
    tier_id: uuid.UUID
    tier_name: str
    status: TicketStatus
    holder_name: str
    paid_at: datetime | None
    checked_in_at: datetime | None
    cancelled_at: datetime | None
    cancellation_reason: str
    created_at: datetime
    payment: TicketPaymentSchema | None = Field(
        None, description="The online payment of this ticket; null for other methods."
    )

    @staticmethod
    def resolve_tier_name(obj: Ticket) -> str:
        return obj.tier.name  # select_related by every query that feeds this schema

    @staticmethod
    def resolve_payment(obj: Ticket) -> dict[str, object] | None:
        return ticket_payment(obj)  # `payment` select_related like `tier`


class CheckoutResultSchema(Schema):
    tickets: list[TicketSchema]
    payment: CheckoutPaymentSchema | None = Field(
        None,
        description="Set when the cart is paid online: where to send the buyer, and until when.",
    )


class TicketUserSchema(Schema):
    id: uuid.UUID
    email: str
    display_name: str


class AdminTicketSchema(TicketSchema):
    user: TicketUserSchema


class TierAdminSchema(Schema):
    id: uuid.UUID
    event_id: uuid.UUID
    name: str
    description: str
    price: Decimal
    currency: str
    payment_method: TicketTier.PaymentMethod
    total_quantity: int | None
    quantity_sold: int
    remaining: int | None
    sales_start_at: datetime | None
    sales_end_at: datetime | None
    max_tickets_per_user: int | None
    payment_due_hours: int
    fee: Decimal
    tax_rate: Decimal
    refund_deadline: datetime | None
