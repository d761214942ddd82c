"""HTTP tests of the anonymous /auth token routes: JWT pair, refresh (rotation) and logout;
every auth write route is throttled, and concurrent rotations of one refresh token yield
one session.
"""

import pytest
from django.core.cache import cache
from ninja_jwt.token_blacklist.models import BlacklistedToken
from ninja_jwt.tokens import RefreshToken

from accounts.models import User
from accounts.tests.auth_support import _fresh_cache, anon, login
from accounts.tests.factories import PASSWORD, make_user
from common.api import WriteThrottle
from common.tests.racing import run_together, succeeded

__all__ = ["_fresh_cache", "anon"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


# -- token pair ---------------------------------------------------------------------


def test_token_pair_returns_working_access_and_refresh(anon, api):
    user = make_user("pair@example.com")

    response = login(anon, "pair@example.com")

    assert response.status_code == 200
    tokens = response.json()
    assert set(tokens) == {"access", "refresh"}
    client = api(None)
    client.headers["Authorization"] = f"Bearer {tokens['access']}"
    assert client.get("/me").json()["id"] == str(user.pk)


def test_token_pair_email_is_case_insensitive(anon):
    make_user("mixed@example.com")

    assert login(anon, "  MIXED@Example.COM ").status_code == 200


@pytest.mark.parametrize(
    ("email", "password"),
    [("known@example.com", "wrong-password"), ("unknown@example.com", PASSWORD)],
)
def test_token_pair_refuses_bad_credentials(anon, email, password):
    make_user("known@example.com")

    response = login(anon, email, password)

    assert response.status_code == 401
    assert response.json()["code"] == "invalid_credentials"


def test_token_pair_refuses_inactive_account(anon):
    make_user("gone@example.com", is_active=False)

    response = login(anon, "gone@example.com")

    assert response.status_code == 401
    assert response.json()["code"] == "invalid_credentials"


# -- refresh and logout -------------------------------------------------------------


def test_refresh_rotates_and_the_old_refresh_token_dies(anon):
    make_user("rot@example.com")
    first = login(anon, "rot@example.com").json()

    rotated = anon.post("/auth/token/refresh", {"refresh": first["refresh"]})

    assert rotated.status_code == 200
    second = rotated.json()
    assert second["refresh"] != first["refresh"]
    replay = anon.post("/auth/token/refresh", {"refresh": first["refresh"]})
    assert replay.status_code == 401
    assert replay.json()["code"] == "token_not_valid"
    assert anon.post("/auth/token/refresh", {"refresh": second["refresh"]}).status_code == 200


def test_rotated_refresh_token_belongs_to_the_user(anon):
    user = make_user("owner@example.com")
    first = login(anon, "owner@example.com").json()

    second = anon.post("/auth/token/refresh", {"refresh": first["refresh"]}).json()

    assert RefreshToken(second["refresh"])["user_id"] == str(user.pk)


@pytest.mark.parametrize("kind", ["garbage", "access"])
def test_refresh_refuses_anything_but_a_refresh_token(anon, kind):
    make_user("kind@example.com")
    pair = login(anon, "kind@example.com").json()
    token = "not.a.jwt" if kind == "garbage" else pair["access"]

    response = anon.post("/auth/token/refresh", {"refresh": token})

    assert response.status_code == 401


def test_refresh_refuses_token_of_deactivated_user(anon):
    user = make_user("deact@example.com")
    pair = login(anon, "deact@example.com").json()
    User.objects.filter(pk=user.pk).update(is_active=False)

    assert anon.post("/auth/token/refresh", {"refresh": pair["refresh"]}).status_code == 401


def test_logout_blacklists_the_refresh_token(anon):
    make_user("bye@example.com")
    pair = login(anon, "bye@example.com").json()

    response = anon.post("/auth/logout", {"refresh": pair["refresh"]})

    assert response.status_code == 204
    jti = RefreshToken(pair["refresh"], verify=False)["jti"]
    assert BlacklistedToken.objects.filter(token__jti=jti).exists()
    assert anon.post("/auth/token/refresh", {"refresh": pair["refresh"]}).status_code == 401


def test_logout_refuses_invalid_token(anon):
    response = anon.post("/auth/logout", {"refresh": "not.a.jwt"})

    assert response.status_code == 401
    assert not BlacklistedToken.objects.exists()


# -- throttling ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/auth/register", {"email": "x@example.com", "password": "short"}),
        ("/auth/token/pair", {"email": "x@example.com", "password": "wrong"}),
        ("/auth/token/refresh", {"refresh": "not.a.jwt"}),
        ("/auth/logout", {"refresh": "not.a.jwt"}),
        ("/auth/password-reset", {"email": "x@example.com"}),
        ("/auth/password-reset/confirm", {"uid": "x", "token": "y", "password": "z"}),
    ],
)
def test_auth_write_routes_are_throttled(anon, settings, path, body):
    # The throttle's rate is read once, when the controllers are registered, so the test
    # sends one request more than the configured rate allows instead of lowering it.
    settings.THROTTLE_ENABLED = True
    settings.LOGIN_FAILURES_PER_IP = settings.LOGIN_FAILURES_PER_ACCOUNT = 1000  # not these
    allowed = WriteThrottle().num_requests
    assert allowed is not None
    cache.clear()

    statuses = [anon.post(path, body).status_code for _ in range(allowed + 1)]

    assert 429 not in statuses[:allowed]
    assert statuses[allowed] == 429
    cache.clear()


# -- concurrency (PostgreSQL) -------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_rotations_of_one_refresh_token_yield_one_session():
    from accounts.errors import InvalidRefreshToken
    from accounts.service import tokens

    user = make_user("race@example.com")
    raw = tokens.issue_token_pair(user).refresh

    def rotate() -> str:
        try:
            tokens.rotate_refresh_token(raw)
        except InvalidRefreshToken:
            return "refused"
        return "rotated"

    outcomes = succeeded(run_together([rotate] * 4))

    assert sorted(outcomes) == ["refused", "refused", "refused", "rotated"]
