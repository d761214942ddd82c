"""The OpenAPI document is a stable contract: ids that survive a restart, every error the
routes give, and component names that mean one thing (ADR 0010)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from encore.api import api

SRC = Path(__file__).resolve().parents[2]
METHODS = {"get", "put", "post", "delete", "patch"}

DUMP_IDS = """
import json, django
django.setup()
from encore.api import api
schema = api.get_openapi_schema()
print(json.dumps([op["operationId"] for item in schema["paths"].values() for op in item.values()]))
"""


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return json.loads(json.dumps(api.get_openapi_schema()))


@pytest.mark.own_processes
def test_operation_ids_are_the_same_in_a_fresh_process(schema: dict[str, Any]) -> None:
    """A restart (a new interpreter importing the app anew) gives a client the same names."""
    here = [op["operationId"] for _, _, op in _operations(schema)]
    fresh = subprocess.run(
        [sys.executable, "-c", DUMP_IDS],
        cwd=SRC,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "encore.settings", "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(fresh.stdout.strip().splitlines()[-1]) == here


def test_operation_ids_are_unique_readable_and_carry_no_random_suffix(
    schema: dict[str, Any],
) -> None:
    ids = [op["operationId"] for _, _, op in _operations(schema)]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", op_id) for op_id in ids), ids
    assert not [op_id for op_id in ids if re.search(r"_[0-9a-f]{8}$", op_id)]
    assert {"auth_register", "event_admin_event_update_event", "me_me"} <= set(ids)


def test_component_names_are_claimed_by_one_schema_each() -> None:
    """Same-named classes (Django's nested `Status` choices, a model in input and output
    mode) would otherwise overwrite one another in `components.schemas`."""
    assert api.get_openapi_schema().conflicts == {}


def test_three_status_choices_are_documented_with_their_own_values(
    schema: dict[str, Any],
) -> None:
    components = schema["components"]["schemas"]
    assert components["AdminRSVPUpdateSchema"]["properties"]["status"]["enum"] == [
        "yes",
        "no",
        "maybe",
    ]
    tickets = schema["paths"]["/api/event-admin/{event_id}/tickets"]["get"]["parameters"]
    status = next(p for p in tickets if p["name"] == "status")
    assert "checked_in" in json.dumps(status["schema"])
    change = schema["paths"]["/api/event-admin/{event_id}/status/{status}"]["post"]
    status = next(p for p in change["parameters"] if p["name"] == "status")
    assert status["schema"]["enum"] == ["draft", "open", "closed", "cancelled"]


#: Stripe's webhook: exempt from throttles by design (issue 14; Stripe bursts and retries).
UNTHROTTLED = {"/api/payments/stripe/webhook"}


def _statuses(op: dict[str, Any]) -> set[int]:
    return {int(code) for code in op["responses"]}


def test_every_route_documents_the_errors_it_can_give(schema: dict[str, Any]) -> None:
    missing = []
    for method, path, op in _operations(schema):
        expected = {503}
        if any("JWTAuth" in requirement for requirement in op.get("security", [])):
            expected.add(401)
        if op.get("parameters") or op.get("requestBody"):
            expected |= {400, 422}
        if op.get("requestBody") or method != "get":  # the guards judge any write's body
            expected |= {400, 413, 415}
        if path.startswith(("/api/event-admin/", "/api/organization-admin/")):
            expected |= {403, 404}
        if any(p["in"] == "path" for p in op.get("parameters", [])):
            expected.add(404)
        if method != "get" and path not in UNTHROTTLED:  # every other write is throttled
            expected.add(429)
        if not expected <= _statuses(op):
            missing.append(f"{method.upper()} {path}: {sorted(expected - _statuses(op))}")
    assert missing == []


def test_error_responses_have_the_api_error_shape(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    assert components["ErrorSchema"]["required"] == ["detail", "code"]
    invalid = components["InvalidRequestSchema"]
    assert invalid["required"] == ["detail", "code"]
    assert invalid["properties"]["errors"]["additionalProperties"]["items"] == {"type": "string"}
    me = schema["paths"]["/api/me"]["patch"]["responses"]
    assert me["422"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/InvalidRequestSchema"
    }
    assert me["401"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorSchema"
    }
    for status in ("429", "503"):
        assert me[status]["headers"]["Retry-After"]["required"] is True


def test_an_eligibility_refusal_keeps_its_own_body_beside_invalid_input(
    schema: dict[str, Any],
) -> None:
    rsvp = schema["paths"]["/api/events/{event_id}/rsvp/{answer}"]["post"]["responses"]
    alternatives = rsvp["400"]["content"]["application/json"]["schema"]["anyOf"]
    assert {"$ref": "#/components/schemas/EligibilityErrorSchema"} in alternatives
    assert {"$ref": "#/components/schemas/InvalidRequestSchema"} in alternatives


def test_routes_open_to_anonymous_callers_say_the_token_is_optional(
    schema: dict[str, Any],
) -> None:
    events = schema["paths"]["/api/events"]["get"]
    assert events["security"] == [{"JWTAuth": []}, {}]
    me = schema["paths"]["/api/me"]["get"]
    assert me["security"] == [{"JWTAuth": []}]
    register = schema["paths"]["/api/auth/register"]["post"]
    assert "security" not in register


def test_calendar_feeds_document_their_file(schema: dict[str, Any]) -> None:
    for path in (
        "/api/events/{event_id}/calendar.ics",
        "/api/event-series/{series_id}/calendar.ics",
    ):
        ok = schema["paths"][path]["get"]["responses"]["200"]
        assert list(ok["content"]) == ["text/calendar"]


@pytest.mark.django_db
def test_the_served_document_is_the_checked_one(client: Client, schema: dict[str, Any]) -> None:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    assert response.json() == schema
