"""With the database out of reach, every API route answers JSON 503 `unavailable`, and
every page a small HTML 503 that needs nothing of the database (issue 34).

The database really is unreachable here: the default connection is pointed at a closed
port (PostgreSQL) or a file that cannot be opened (SQLite) and reconnects, so Django
raises the error a stopped server gives. The server stopped for real is the stack test's.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connections
from django.http import HttpRequest, HttpResponse
from django.test import Client
from ninja_jwt.tokens import RefreshToken

from accounts.models import User
from accounts.tests.factories import make_user

CLOSED_PORT = "18299"  # in this helper's port range; nothing listens on it


@pytest.fixture
def database_down(transactional_db: None) -> Iterator[None]:
    with _down():
        yield


@contextmanager
def _down() -> Iterator[None]:
    conn = connections["default"]
    saved_settings = dict(conn.settings_dict)
    saved_connection = conn.connection  # SQLite's in-memory test database lives in it
    conn.connection = None
    if conn.vendor == "postgresql":
        conn.settings_dict.update(HOST="127.0.0.1", PORT=CLOSED_PORT)
    else:
        conn.settings_dict["NAME"] = "/nonexistent-encore-directory/db.sqlite3"
    try:
        yield
    finally:
        conn.settings_dict.clear()
        conn.settings_dict.update(saved_settings)
        conn.connection = saved_connection
        conn.autocommit = True


def _assert_unavailable(response: Any) -> None:
    assert response.status_code == 503, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "unavailable"
    assert response.json()["detail"]
    assert int(response["Retry-After"]) >= 1


def test_public_list_answers_503_unavailable(database_down: None) -> None:
    _assert_unavailable(Client(raise_request_exception=False).get("/api/events"))


@pytest.fixture
def token(transactional_db: None) -> str:
    return str(RefreshToken.for_user(make_user()).access_token)  # type: ignore[misc]


def test_the_auth_lookup_inside_ninja_answers_503(token: str, database_down: None) -> None:
    client = Client(raise_request_exception=False, headers={"Authorization": f"Bearer {token}"})
    _assert_unavailable(client.get("/api/me"))
    _assert_unavailable(
        client.patch("/api/me", {"first_name": "A"}, content_type="application/json")
    )


def test_login_answers_503(database_down: None) -> None:
    body = {"email": "a@example.com", "password": "secret"}
    response = Client(raise_request_exception=False).post(
        "/api/auth/token/pair", body, content_type="application/json"
    )
    _assert_unavailable(response)


# -- outside ninja: a middleware that needs the database, and any other crash -----------
def query_in_middleware(get_response: Callable[[HttpRequest], HttpResponse]) -> Any:
    """Stands for a middleware that looks something up first (a session's user, say)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        User.objects.exists()
        return get_response(request)

    return middleware


def crash_in_middleware(get_response: Callable[[HttpRequest], HttpResponse]) -> Any:
    def middleware(request: HttpRequest) -> HttpResponse:
        raise RuntimeError("a bug")

    return middleware


def _with_middleware(settings: Any, dotted: str) -> None:
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, dotted]


def test_a_middleware_hitting_the_down_database_answers_503(
    settings: Any, database_down: None
) -> None:
    _with_middleware(settings, f"{__name__}.query_in_middleware")
    _assert_unavailable(Client(raise_request_exception=False).get("/api/events"))


def test_an_internal_error_under_api_is_a_json_500(settings: Any, db: None) -> None:
    _with_middleware(settings, f"{__name__}.crash_in_middleware")
    response = Client(raise_request_exception=False).get("/api/events")
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal error.", "code": "server_error"}


def test_an_internal_error_outside_the_api_keeps_django_page(settings: Any, db: None) -> None:
    _with_middleware(settings, f"{__name__}.crash_in_middleware")
    response = Client(raise_request_exception=False).get("/admin/login/")
    assert response.status_code == 500
    assert not response["Content-Type"].startswith("application/json")


# -- pages -----------------------------------------------------------------------------
def _assert_unavailable_page(response: Any) -> None:
    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"].startswith("text/html")
    assert int(response["Retry-After"]) >= 1
    assert "<h1>Encore is briefly unavailable</h1>" in response.content.decode()


@pytest.mark.parametrize("path", ["/", "/events/00000000-0000-0000-0000-000000000001"])
def test_a_page_answers_a_503_page(database_down: None, path: str) -> None:
    _assert_unavailable_page(Client(raise_request_exception=False).get(path))


def test_logging_in_answers_a_503_page(database_down: None) -> None:
    """The log-in form itself needs no database; checking the password does."""
    client = Client(raise_request_exception=False)
    assert client.get("/login").status_code == 200
    answer = client.post("/login", {"email": "a@example.com", "password": "secret"})
    _assert_unavailable_page(answer)


@pytest.fixture
def signed_in(transactional_db: None) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(make_user())
    return client


def test_a_signed_in_page_and_a_form_post_answer_a_503_page(
    signed_in: Client, database_down: None
) -> None:
    """The session and the user are read by middleware, before any view runs."""
    _assert_unavailable_page(signed_in.get("/me"))
    _assert_unavailable_page(signed_in.post("/me/settings", {"first_name": "A"}))


def test_pages_answer_again_once_the_database_is_back(signed_in: Client) -> None:
    with _down():
        _assert_unavailable_page(signed_in.get("/me"))
    assert signed_in.get("/me").status_code == 200
    assert Client().get("/").status_code == 200
