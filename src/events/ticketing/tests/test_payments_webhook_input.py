"""The Stripe webhook refuses what it cannot read and never crashes (issue 34).

The route has no auth and no throttle, so anyone can send it anything: any header, any
body, signed with the endpoint secret or not. Every answer is a 200 (recorded, also as
"unknown payment") or a 400 (`invalid_signature`, or `invalid` for a signed event whose
fields have the wrong types), never a 500. Signed events reach the handlers with the
ids of a real payment about as often as with made-up ones.
"""

import json
import string
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.models import StripeEvent
from events.ticketing.tests.payment_helpers import (
    online_event,
    online_tier,
    paid_checkout,
    payment_of,
)
from events.ticketing.tests.stripe_stub import ACCOUNT, signature, stripe_stub

__all__ = ["stripe_stub"]

pytestmark = pytest.mark.django_db

URL = "/api/payments/stripe/webhook"
KINDS = [
    "checkout.session.completed",
    "checkout.session.async_payment_succeeded",
    "checkout.session.expired",
    "checkout.session.async_payment_failed",
    "charge.refunded",
    "charge.dispute.created",
    "customer.created",
]

# What a header may carry: Latin-1 text without line breaks (what WSGI hands Django).
header_text = st.text(st.characters(max_codepoint=255, exclude_characters="\r\n"), max_size=80)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def _events(session_id: str, intent: str, payment_id: str) -> st.SearchStrategy[dict]:
    """Event-shaped bodies: Stripe's keys, with the real payment's ids or anything else."""
    some = st.one_of(json_values, st.text(alphabet=string.printable + "\x00é", max_size=300))
    obj = st.fixed_dictionaries(
        {},
        optional={
            "id": st.sampled_from([session_id, "cs_unknown"]) | some,
            "payment_intent": st.sampled_from([intent, "pi_unknown"]) | some,
            "payment_status": st.sampled_from(["paid", "unpaid", "no_payment_required"]) | some,
            "amount_refunded": st.integers(min_value=-(2**70), max_value=2**70) | some,
            "metadata": st.fixed_dictionaries({"encore_payment_id": st.just(payment_id) | some})
            | some,
            "status": some,
            "reason": some,
        },
    )
    return st.fixed_dictionaries(
        {
            "id": st.text(max_size=300) | some,
            "type": st.sampled_from(KINDS) | some,
            "data": st.fixed_dictionaries({"object": obj}) | some,
        },
        optional={"account": st.sampled_from([ACCOUNT, ""]) | some},
    )


@pytest.fixture
def real_payment(api, user, stripe_stub):
    event = online_event(max_attendees=3)
    payment = payment_of(paid_checkout(api, user, event, online_tier(event), 2))
    stripe_stub.intents["pi_real"] = {
        "id": "pi_real",
        "metadata": {"encore_payment_id": str(payment.pk)},
    }
    return payment


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_header_or_body_is_answered_200_or_400(real_payment, data):
    client = Client()
    body = data.draw(
        st.one_of(
            st.binary(max_size=200),
            json_values.map(lambda v: json.dumps(v).encode()),
            _events(real_payment.checkout_session_id, "pi_real", str(real_payment.pk)).map(
                lambda v: json.dumps(v).encode()
            ),
            st.just(b"[" * 100_000),
        ),
        label="body",
    )
    header = data.draw(
        st.one_of(st.just(signature(body)), header_text, st.just(signature(body) + "é")),
        label="Stripe-Signature",
    )
    extra = data.draw(
        st.dictionaries(
            st.sampled_from(["X-Forwarded-For", "Accept", "X-Stripe"]), header_text, max_size=2
        )
    )

    response = client.post(
        URL,
        data=body,
        content_type="application/json",
        headers={"Stripe-Signature": header, **extra},
    )

    assert response.status_code in (200, 400), (response.status_code, response.content[:300])
    answer = response.json()
    if response.status_code == 200:
        assert answer["received"] is True
    else:
        assert answer["code"] in ("invalid_signature", "invalid"), answer


def _post_signed(event: dict) -> Any:
    """The event as Stripe would send it: JSON, signed with the endpoint's secret."""
    body = json.dumps(event).encode()
    return Client().post(
        URL,
        data=body,
        content_type="application/json",
        headers={"Stripe-Signature": signature(body)},
    )


def test_a_non_ascii_signature_is_refused_and_records_nothing(real_payment):
    response = Client().post(
        URL, data=b"{}", content_type="application/json", headers={"Stripe-Signature": "t=1,v1=é"}
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_signature"
    assert not StripeEvent.objects.exists()


@pytest.mark.parametrize(
    "fields",
    [
        {"data": "not an object"},
        {"data": {"object": {"amount_refunded": "a lot"}}, "type": "charge.refunded"},
        {"data": {"object": {"payment_intent": {"id": "pi_1"}}}, "type": "charge.refunded"},
        {"id": "evt_" + "9" * 300, "data": {"object": {}}},
        {"id": "evt_\x00", "data": {"object": {}}},
    ],
    ids=["data is text", "amount is text", "intent is an object", "id too long", "NUL in id"],
)
def test_a_signed_event_of_the_wrong_shape_is_400_and_records_nothing(real_payment, fields):
    event = {"id": "evt_shape", "type": "checkout.session.completed", **fields}
    response = _post_signed(event)

    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"
    assert not StripeEvent.objects.exists()


def test_a_refund_of_an_intent_stripe_does_not_know_is_recorded_and_ignored(real_payment):
    """Not Encore's payment: Stripe answers 404 for the intent on that account. A 502 would
    make Stripe deliver the event again and again."""
    event = {
        "id": "evt_not_ours",
        "type": "charge.refunded",
        "account": ACCOUNT,
        "data": {"object": {"payment_intent": "pi_someone_else", "amount_refunded": 100}},
    }
    response = _post_signed(event)

    assert response.status_code == 200, response.content
    assert StripeEvent.objects.get(stripe_id="evt_not_ours").outcome == "unknown_payment"
