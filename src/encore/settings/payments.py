"""Stripe (issue 14, ADR 0026): the platform's keys; organisations connect their own
Stripe account by its Connect id, so no organisation secret is ever stored.

Empty `STRIPE_SECRET_KEY` switches online payment off: a tier cannot be set to `online`
and the webhook answers 400 to everything (no secret to check a signature with).
"""

from .env import env_int, env_str

STRIPE_SECRET_KEY = env_str("STRIPE_SECRET_KEY")
STRIPE_WEBHOOK_SECRET = env_str("STRIPE_WEBHOOK_SECRET")
#: Only for tests and a local stub; empty = Stripe's own address.
STRIPE_API_BASE = env_str("STRIPE_API_BASE")
#: Where Stripe's Checkout pages live: the checkout form may send its buyer there (the
#: page's Content-Security-Policy `form-action` follows the redirect).
STRIPE_CHECKOUT_ORIGIN = env_str("STRIPE_CHECKOUT_ORIGIN") or "https://checkout.stripe.com"
#: How long a Checkout Session (and the seats its pending tickets hold) stays open.
#: Stripe accepts 30 minutes to 24 hours.
STRIPE_CHECKOUT_MINUTES = max(30, min(env_int("STRIPE_CHECKOUT_MINUTES", 30), 24 * 60))
#: Seconds a webhook signature stays acceptable (Stripe's default tolerance).
STRIPE_WEBHOOK_TOLERANCE_SECONDS = env_int("STRIPE_WEBHOOK_TOLERANCE_SECONDS", 300)
