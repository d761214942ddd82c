"""Pages carry a Content-Security-Policy (django-csp, `encore.settings.security`).

Everything a page loads is Encore's own, with no inline script or style and no framing;
the browser tests fail on any refusal the policy causes (web/tests/browser/conftest.py).
The API (JSON, and Swagger UI's inline start-up) and the Django admin go without.
"""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

HEADER = "Content-Security-Policy"


def _directives(value: str) -> dict[str, list[str]]:
    parts = [part.split() for part in value.split(";") if part.strip()]
    return {words[0]: words[1:] for words in parts}


@pytest.mark.parametrize("path", ["/", "/login", "/signup"])
def test_a_page_allows_only_its_own_scripts_and_styles_and_no_framing(path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 200
    policy = _directives(response[HEADER])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["object-src"] == ["'none'"]
    assert "'unsafe-inline'" not in response[HEADER] and "'unsafe-eval'" not in response[HEADER]


@pytest.mark.parametrize("path", ["/api/events", "/api/docs", "/admin/login/"])
def test_the_api_and_the_admin_go_without(path: str) -> None:
    response = Client().get(path)
    assert response.status_code == 200
    assert HEADER not in response
