"""The app serves its own assets (API docs offline, a styled admin) and CORS is opt-in."""

import re

import pytest
from django.test import Client

ASSET = re.compile(r"""<(?:script|link)\b[^>]*?\b(?:src|href)=["']([^"']+)["']""", re.IGNORECASE)


def assets_of(html: str) -> list[str]:
    return ASSET.findall(html)


def fetch(client: Client, url: str) -> tuple[int, bytes]:
    response = client.get(url)
    streamed = response.streaming_content if response.streaming else None  # type: ignore[attr-defined]
    body = b"".join(streamed) if streamed is not None else response.content
    return response.status_code, body


def test_api_docs_load_every_asset_from_the_app_not_a_cdn() -> None:
    client = Client()
    page = client.get("/api/docs")
    assert page.status_code == 200

    assets = assets_of(page.content.decode())
    assert any(url.endswith(".js") for url in assets)
    assert any(url.endswith(".css") for url in assets)
    for url in assets:
        assert url.startswith("/static/"), f"{url} is not served by the app"
        status, body = fetch(client, url)
        assert status == 200 and body, url


@pytest.mark.django_db
def test_admin_login_page_is_styled() -> None:
    client = Client()
    page = client.get("/admin/login/")
    assert page.status_code == 200

    stylesheets = [url for url in assets_of(page.content.decode()) if url.endswith(".css")]
    assert "/static/admin/css/base.css" in stylesheets
    for url in stylesheets:
        status, body = fetch(client, url)
        assert status == 200 and b"{" in body, url


def preflight(client: Client, origin: str) -> object:
    return client.options(
        "/api/events",
        headers={"Origin": origin, "Access-Control-Request-Method": "GET"},
    )


def test_no_origin_is_allowed_by_default() -> None:
    response = preflight(Client(), "https://app.example.org")

    assert "access-control-allow-origin" not in response.headers  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_a_configured_origin_is_allowed_and_others_are_not(settings) -> None:
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.org"]
    client = Client()

    allowed = preflight(client, "https://app.example.org")
    other = preflight(client, "https://evil.example.com")

    assert allowed.status_code == 200  # type: ignore[attr-defined]
    assert allowed.headers["access-control-allow-origin"] == "https://app.example.org"  # type: ignore[attr-defined]
    assert "access-control-allow-origin" not in other.headers  # type: ignore[attr-defined]
    exposed = client.get("/api/events", headers={"Origin": "https://app.example.org"})
    assert "X-Request-ID" in exposed.headers["access-control-expose-headers"]
