"""An organisation connects its Stripe account (ADR 0026): only the Connect id is kept,
Stripe confirms it can take charges, and only `edit_organization` may change it."""

import pytest

from accounts.tests.factories import make_user
from events.core.tests.factories import make_org, make_staff
from events.models import StripeConnection
from events.ticketing.tests.stripe_stub import ACCOUNT, stripe_stub

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db


def url(org):
    return f"/organization-admin/{org.slug}/stripe"


def test_the_owner_connects_an_account_stripe_knows(api, stripe_stub):
    org = make_org()

    response = api(org.owner).put(url(org), {"account_id": ACCOUNT})

    assert response.status_code == 200, response.json()
    assert response.json() == {
        "organization_id": str(org.pk),
        "account_id": ACCOUNT,
        "charges_enabled": True,
    }
    assert stripe_stub.calls_to("GET", f"/v1/accounts/{ACCOUNT}")
    assert api(org.owner).get(url(org)).json()["account_id"] == ACCOUNT


@pytest.mark.parametrize("account", ["acct_unknown", "acct_notready"])
def test_an_unknown_or_unready_account_is_400(api, stripe_stub, account):
    stripe_stub.accounts["acct_notready"] = {"id": "acct_notready", "charges_enabled": False}
    org = make_org()

    response = api(org.owner).put(url(org), {"account_id": account})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_stripe_account"
    assert not StripeConnection.objects.exists()


def test_a_malformed_id_never_reaches_stripe(api, stripe_stub):
    org = make_org()

    response = api(org.owner).put(url(org), {"account_id": "sk_live_oops"})

    assert response.status_code in (400, 422)
    assert stripe_stub.calls == []


def test_stripe_down_is_502(api, stripe_stub):
    stripe_stub.failing.add("/v1/accounts")
    org = make_org()

    response = api(org.owner).put(url(org), {"account_id": ACCOUNT})

    assert response.status_code == 502
    assert not StripeConnection.objects.exists()


def test_only_edit_organization_may_connect_or_disconnect(api, stripe_stub):
    org = make_org()
    StripeConnection.objects.create(organization=org, account_id=ACCOUNT, charges_enabled=True)
    staff = make_staff(org)  # default permissions: no edit_organization

    answers = [
        api(staff).put(url(org), {"account_id": ACCOUNT}).status_code,
        api(staff).delete(url(org)).status_code,
        api(staff).get(url(org)).status_code,
        api(make_user()).delete(url(org)).status_code,
    ]

    assert answers[:3] == [403, 403, 403]
    assert answers[3] in (403, 404)
    assert StripeConnection.objects.filter(organization=org).exists()


def test_the_owner_disconnects(api, stripe_stub):
    org = make_org()
    StripeConnection.objects.create(organization=org, account_id=ACCOUNT, charges_enabled=True)

    assert api(org.owner).delete(url(org)).status_code == 204
    assert not StripeConnection.objects.exists()
    assert api(org.owner).get(url(org)).status_code == 404
