"""Online payment through Stripe (issue 14): checkout, webhooks, refunds, expiry.

One module per concept: `stripe_api` (the client), `connection` (an organisation's
account), `checkout`, `settle` (what Stripe's answers do to tickets, under the locks),
`webhooks`, `refunds`, `expiry`.
"""

from events.service.payment_service.checkout import CheckoutResult, checkout
from events.service.payment_service.connection import (
    connect_stripe_account,
    disconnect_stripe_account,
)
from events.service.payment_service.expiry import expire_open_checkouts
from events.service.payment_service.refunds import (
    RefundRequest,
    is_paid_online,
    refund_by_holder,
    refund_by_organiser,
)
from events.service.payment_service.webhooks import WebhookResult, handle_webhook

__all__ = [
    "CheckoutResult",
    "RefundRequest",
    "WebhookResult",
    "checkout",
    "connect_stripe_account",
    "disconnect_stripe_account",
    "expire_open_checkouts",
    "handle_webhook",
    "is_paid_online",
    "refund_by_holder",
    "refund_by_organiser",
]
