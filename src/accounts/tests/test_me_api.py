"""HTTP tests of GET/PATCH /me: the caller's own profile."""

import pytest
from django.core.cache import cache

from accounts.tests.factories import make_user
from common.api import WriteThrottle

pytestmark = pytest.mark.django_db


def test_me_returns_the_callers_profile(api):
    user = make_user(
        "me@example.com", first_name="Grace", last_name="Hopper", timezone="America/New_York"
    )

    response = api(user).get("/me")

    assert response.status_code == 200
    assert response.json() == {
        "id": str(user.pk),
        "email": "me@example.com",
        "first_name": "Grace",
        "last_name": "Hopper",
        "preferred_name": "",
        "display_name": "Grace Hopper",
        "language": "en",
        "timezone": "America/New_York",
    }


@pytest.mark.parametrize("method", ["get", "patch"])
def test_me_requires_authentication(api, method):
    response = getattr(api(None), method)("/me", {} if method == "patch" else None)

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_me_refuses_a_forged_token(api, user):
    client = api(None)
    client.headers["Authorization"] = "Bearer not.a.jwt"

    assert client.get("/me").status_code == 401


def test_patch_me_changes_only_the_fields_sent(api, user):
    user.first_name = "Kept"
    user.save(update_fields=["first_name"])

    response = api(user).patch(
        "/me", {"preferred_name": "Ziggy", "language": "de", "timezone": "Europe/Berlin"}
    )

    assert response.status_code == 200
    body = response.json()
    assert body["display_name"] == "Ziggy"
    assert body["first_name"] == "Kept"
    user.refresh_from_db()
    assert (user.preferred_name, user.language, user.timezone) == ("Ziggy", "de", "Europe/Berlin")
    assert user.first_name == "Kept"


def test_patch_me_refuses_unknown_timezone_and_changes_nothing(api, user):
    response = api(user).patch("/me", {"first_name": "Changed", "timezone": "Atlantis/Capital"})

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert list(body["errors"]) == ["timezone"]
    user.refresh_from_db()
    assert (user.first_name, user.timezone) == ("", "UTC")


@pytest.mark.parametrize("language", ["fr", "", "english"])
def test_patch_me_refuses_language_outside_settings_languages(api, user, language):
    response = api(user).patch("/me", {"language": language})

    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["language"]
    user.refresh_from_db()
    assert user.language == "en"


def test_patch_me_refuses_fields_that_are_not_editable(api, user):
    response = api(user).patch("/me", {"email": "new@example.com"})

    assert response.status_code == 422
    user.refresh_from_db()
    assert user.email != "new@example.com"


def test_patch_me_refuses_null_for_a_name(api, user):
    response = api(user).patch("/me", {"first_name": None})

    assert response.status_code == 422


def test_patch_me_changes_only_the_caller(api, user):
    other = make_user(first_name="Other")

    api(user).patch("/me", {"first_name": "Mine"})

    other.refresh_from_db()
    assert other.first_name == "Other"


def test_patch_me_is_throttled(api, user, settings):
    settings.THROTTLE_ENABLED = True
    allowed = WriteThrottle().num_requests
    assert allowed is not None
    cache.clear()
    client = api(user)

    statuses = [client.patch("/me", {"first_name": "x"}).status_code for _ in range(allowed + 1)]

    assert 429 not in statuses[:allowed]
    assert statuses[allowed] == 429
    cache.clear()
