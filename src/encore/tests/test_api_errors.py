"""Every failure reaches the client in docs/spec/api.md's error shape: `detail` + stable `code`."""

from typing import Any

import pytest
from django.test import Client

from accounts.tests.factories import make_user


@pytest.mark.django_db
def test_throttled_write_answers_429_with_code_and_retry_after(settings: Any, api: Any) -> None:
    settings.THROTTLE_ENABLED = True
    client = api(make_user())
    statuses = []
    for _ in range(61):
        statuses.append(client.patch("/me", {"first_name": "Ann"}))
    last = statuses[-1]
    assert [r.status_code for r in statuses[:60]] == [200] * 60
    assert last.status_code == 429
    assert last.json()["code"] == "throttled"
    assert int(last["Retry-After"]) >= 1


@pytest.mark.django_db
def test_page_past_the_end_is_404_with_code(api: Any) -> None:
    response = api(None).get("/events", page=99)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


@pytest.mark.django_db
def test_schema_violation_is_422_with_field_errors(api: Any) -> None:
    response = api(None).post("/auth/register", {"email": "a@example.com", "password": 12})
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid"
    assert "password" in body["errors"]


@pytest.mark.django_db
def test_protected_route_without_token_is_401_with_code(api: Any) -> None:
    response = api(None).get("/me")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.django_db
def test_garbage_token_is_401_with_code() -> None:
    response = Client().get("/api/me", headers={"Authorization": "Bearer not-a-jwt"})
    assert response.status_code == 401
    assert response.json()["code"] in {"token_not_valid", "not_authenticated"}


def test_openapi_schema_and_docs_are_served(client: Client) -> None:
    schema = client.get("/api/openapi.json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/events" in paths
    assert "/api/events/{event_id}/checkout" in paths
    assert client.get("/api/docs").status_code == 200
