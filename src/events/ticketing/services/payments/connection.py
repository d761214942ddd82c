"""An organisation connects its Stripe account (Connect, ADR 0026).

Only the account id is stored. Stripe is asked whether the account exists and can take
charges before it is saved, so a typo is a 400 now instead of a failed checkout later.
"""

import uuid

import stripe
from django.db import transaction

from events.models import Organization, StripeConnection
from events.ticketing.errors import InvalidStripeAccount, PaymentProviderUnavailable
from events.ticketing.services.payments import stripe_api


def connect_stripe_account(organization: Organization, account_id: str) -> StripeConnection:
    client = stripe_api.client()
    try:
        account = stripe_api.call(client.v1.accounts.retrieve, account_id, account=account_id)
    except PaymentProviderUnavailable as exc:
        # Stripe answers an unknown or foreign account with a 4xx: the id is wrong;
        # an outage stays a 502.
        if isinstance(exc.__cause__, stripe.InvalidRequestError | stripe.PermissionError):
            raise InvalidStripeAccount() from exc
        raise
    if not account.get("charges_enabled"):
        raise InvalidStripeAccount()
    with transaction.atomic():
        connection, _ = StripeConnection.objects.update_or_create(
            organization=organization,
            defaults={"account_id": account_id, "charges_enabled": True},
        )
    return connection


def disconnect_stripe_account(organization: Organization) -> None:
    """Open checkouts keep their account (stored on the payment); new ones are refused."""
    StripeConnection.objects.filter(organization=organization).delete()


def account_for(organization_id: uuid.UUID) -> str | None:
    """The organisation's usable Stripe account id, or None (no connection, or Stripe
    said it cannot take charges)."""
    return (
        StripeConnection.objects.filter(organization_id=organization_id, charges_enabled=True)
        .values_list("account_id", flat=True)
        .first()
    )
