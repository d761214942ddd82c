"""Log-in limits over HTTP: per account, per client IP, API and admin alike (login_limits)."""

import itertools
import json
from collections.abc import Iterator

import pytest
from django.contrib.auth.backends import ModelBackend
from django.core import mail
from django.core.cache import cache
from django.test import Client

from accounts.tests.factories import PASSWORD, make_user
from common.api import WriteThrottle

pytestmark = pytest.mark.django_db

STRONG = "a-long-unusual-passphrase"
_spoofed = (f"203.0.113.{n % 250}, 198.51.100.{n % 200}" for n in itertools.count())


@pytest.fixture(autouse=True)
def _limits_on(settings) -> Iterator[None]:
    settings.THROTTLE_ENABLED = True
    settings.LOGIN_FAILURES_PER_ACCOUNT = 10
    settings.LOGIN_FAILURES_PER_IP = 30
    settings.LOGIN_FAILURE_WINDOW_SECONDS = 900
    settings.TRUSTED_PROXY_COUNT = 0
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def password_checks(monkeypatch) -> list[str]:
    """Every e-mail Django's backend checked a password for (a hash each)."""
    checked: list[str] = []
    real = ModelBackend.authenticate

    def counting(self, request, username=None, password=None, **kwargs):
        checked.append(str(username or kwargs.get("email")))
        return real(self, request, username, password, **kwargs)

    monkeypatch.setattr(ModelBackend, "authenticate", counting)
    return checked


def api_login(email: str, password: str, ip: str = "192.0.2.1", xff: str | None = None):
    headers = {"X-Forwarded-For": xff} if xff is not None else None
    return Client().post(
        "/api/auth/token/pair",
        json.dumps({"email": email, "password": password}),
        content_type="application/json",
        headers=headers,
        REMOTE_ADDR=ip,
    )


def admin_login(client: Client, email: str, password: str, ip: str = "192.0.2.1"):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": email, "password": password, "next": "/admin/"},
        REMOTE_ADDR=ip,
    )


def statuses(responses) -> list[int]:
    return [response.status_code for response in responses]


# -- API --------------------------------------------------------------------------------


def test_an_account_gets_ten_failures_then_429_from_any_address(password_checks):
    make_user("victim@example.com")

    answers = [api_login("victim@example.com", "wrong", ip=f"192.0.2.{n}") for n in range(12)]

    assert statuses(answers) == [401] * 10 + [429] * 2
    refused = answers[10]
    assert refused.json()["code"] == "throttled"
    assert refused.json()["detail"]
    assert 1 <= int(refused["Retry-After"]) <= 900
    assert len(password_checks) == 10  # refused attempts never reach the hasher


def test_while_limited_even_the_right_password_is_refused_unchecked(password_checks):
    make_user("victim@example.com")
    for _ in range(10):
        api_login("victim@example.com", "wrong")
    password_checks.clear()

    response = api_login("victim@example.com", PASSWORD, ip="198.51.100.7")

    assert response.status_code == 429
    assert password_checks == []


def test_unknown_addresses_are_limited_like_real_ones():
    answers = [api_login("nobody@example.com", "wrong", ip=f"192.0.2.{n}") for n in range(11)]

    assert statuses(answers) == [401] * 10 + [429]


def test_a_client_ip_gets_thirty_failures_whatever_x_forwarded_for_says(password_checks):
    """The spoofable header is ignored without trusted proxies: rotating it changes nothing."""
    answers = [api_login(f"guess{n}@example.com", "wrong", xff=next(_spoofed)) for n in range(32)]

    assert statuses(answers) == [401] * 30 + [429] * 2
    assert len(password_checks) == 30
    assert api_login("guess0@example.com", "wrong", ip="192.0.2.99").status_code == 401


def test_behind_a_trusted_proxy_the_client_is_the_address_it_forwarded(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.1"
    crowd = [
        api_login(f"user{n}@example.com", "wrong", ip=proxy, xff=f"6.6.6.6, 192.0.2.{n}")
        for n in range(40)
    ]
    assert 429 not in statuses(crowd)  # 40 clients behind one proxy, one failure each

    one_client = [
        api_login(f"x{n}@example.com", "wrong", ip=proxy, xff=f"{next(_spoofed)}, 192.0.2.200")
        for n in range(31)
    ]
    assert statuses(one_client) == [401] * 30 + [429]  # left of our proxy's entry: ignored


def test_a_successful_log_in_does_not_reset_the_clients_count():
    """Interleaving log-ins to one's own account buys an attacker no extra guesses."""
    make_user("mine@example.com")
    answers = []
    for n in range(29):
        answers.append(api_login(f"victim{n % 3}@example.com", "wrong"))
        answers.append(api_login("mine@example.com", PASSWORD))

    assert statuses(answers) == [401, 200] * 29
    assert api_login("victim@example.com", "wrong").status_code == 401  # the 30th failure
    assert api_login("victim@example.com", "wrong").status_code == 429
    assert api_login("mine@example.com", PASSWORD).status_code == 429


def test_successes_are_not_counted_as_failures():
    make_user("owner@example.com")

    answers = [api_login("owner@example.com", PASSWORD) for _ in range(15)]
    answers += [api_login("owner@example.com", "wrong") for _ in range(10)]

    assert statuses(answers) == [200] * 15 + [401] * 10


def test_the_limits_follow_the_settings(settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.LOGIN_FAILURES_PER_IP = 5

    account = [api_login("a@example.com", "wrong", ip=f"192.0.2.{n}") for n in range(4)]
    client = [api_login(f"b{n}@example.com", "wrong", ip="192.0.2.77") for n in range(6)]

    assert statuses(account) == [401] * 3 + [429]
    assert statuses(client) == [401] * 5 + [429]


def test_retry_after_is_the_rest_of_the_window(settings):
    settings.LOGIN_FAILURES_PER_ACCOUNT = 1
    settings.LOGIN_FAILURE_WINDOW_SECONDS = 120
    api_login("a@example.com", "wrong")

    refused = api_login("a@example.com", "wrong")

    assert refused.status_code == 429
    assert 118 <= int(refused["Retry-After"]) <= 120


def test_throttle_enabled_false_switches_the_log_in_limits_off(settings):
    settings.THROTTLE_ENABLED = False

    answers = [api_login("victim@example.com", "wrong") for _ in range(40)]

    assert set(statuses(answers)) == {401}


def test_a_password_reset_lets_the_locked_out_owner_in_at_once():
    from accounts.tests.test_auth_password_reset import reset_code

    make_user("locked@example.com")
    for _ in range(10):
        api_login("locked@example.com", "wrong", ip="198.51.100.1")
    assert api_login("locked@example.com", PASSWORD).status_code == 429

    Client().post(
        "/api/auth/password-reset",
        json.dumps({"email": "locked@example.com"}),
        content_type="application/json",
    )
    uid, token = reset_code(mail.outbox[-1])
    confirmed = Client().post(
        "/api/auth/password-reset/confirm",
        json.dumps({"uid": uid, "token": token, "password": STRONG}),
        content_type="application/json",
    )

    assert confirmed.status_code == 204
    assert api_login("locked@example.com", STRONG).status_code == 200


def test_anonymous_writes_are_counted_per_client_ip_not_per_header():
    allowed = WriteThrottle().num_requests
    assert allowed is not None

    def refresh(xff: str):
        return Client().post(
            "/api/auth/token/refresh",
            json.dumps({"refresh": "not.a.jwt"}),
            content_type="application/json",
            REMOTE_ADDR="192.0.2.5",
            HTTP_X_FORWARDED_FOR=xff,
        )

    answers = [refresh(next(_spoofed)) for _ in range(allowed + 1)]

    assert 429 not in statuses(answers[:allowed])
    assert answers[allowed].status_code == 429
    assert answers[allowed].json()["code"] == "throttled"
    assert int(answers[allowed]["Retry-After"]) >= 1


# -- admin ------------------------------------------------------------------------------


def test_admin_log_in_is_limited_per_account_and_checks_no_password_while_limited(
    password_checks,
):
    make_user("staff@example.com", is_staff=True)
    client = Client()

    failures = [
        admin_login(client, "staff@example.com", "wrong", f"192.0.2.{n}") for n in range(10)
    ]
    assert statuses(failures) == [200] * 10  # the form again, with Django's error
    assert "correct email and password" in failures[-1].content.decode()
    password_checks.clear()

    refused = admin_login(client, "staff@example.com", PASSWORD, "198.51.100.9")

    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 900
    assert "Too many failed log-in attempts" in refused.content.decode()
    assert password_checks == []
    assert "_auth_user_id" not in client.session
    assert client.get("/admin/").status_code == 302  # still sent to the login page


def test_admin_log_in_is_limited_per_client_ip():
    client = Client()

    answers = [admin_login(client, f"s{n}@example.com", "wrong") for n in range(31)]

    assert statuses(answers) == [200] * 30 + [429]


def test_admin_and_api_share_the_accounts_count():
    make_user("staff@example.com", is_staff=True)
    client = Client()
    for n in range(5):
        api_login("staff@example.com", "wrong", ip=f"192.0.2.{n}")
        admin_login(client, "staff@example.com", "wrong", f"198.51.100.{n}")

    assert api_login("staff@example.com", PASSWORD).status_code == 429
    assert admin_login(client, "staff@example.com", PASSWORD).status_code == 429


def test_admin_log_in_still_works_within_the_limits():
    make_user("staff@example.com", is_staff=True)
    client = Client()
    admin_login(client, "staff@example.com", "wrong")

    response = admin_login(client, "staff@example.com", PASSWORD)

    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200


def test_admin_limits_are_off_with_throttle_enabled_false(settings):
    settings.THROTTLE_ENABLED = False
    client = Client()

    answers = [admin_login(client, "staff@example.com", "wrong") for _ in range(35)]

    assert set(statuses(answers)) == {200}
