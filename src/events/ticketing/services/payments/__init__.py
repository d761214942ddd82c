"""Online payment through Stripe (issue 14): checkout, webhooks, refunds, expiry.

One module per concept: `stripe_api` (the client), `connection` (an organisation's
account), `checkout`, `settle` (what Stripe's answers do to tickets, under the locks),
`webhooks`, `refunds`, `expiry`.
"""

from events.ticketing.services.payments.checkout import CheckoutResult, checkout
from events.ticketing.services.payments.connection import (
    connect_stripe_account,
    disconnect_stripe_account,
)
from events.ticketing.services.payments.expiry import expire_open_checkouts
from events.ticketing.services.payments.refunds import (
    RefundRequest,
    is_paid_online,
    refund_by_holder,
    refund_by_organiser,
)
from events.ticketing.services.payments.webhooks import WebhookResult, handle_webhook

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
