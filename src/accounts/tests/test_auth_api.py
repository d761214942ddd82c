"""HTTP tests of the anonymous /auth routes: sign-up, JWT pair/refresh/logout, password reset."""

import re

import pytest
from django.core import mail
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives
from ninja_jwt.token_blacklist.models import BlacklistedToken
from ninja_jwt.tokens import RefreshToken

from accounts.models import User
from accounts.tests.factories import PASSWORD, make_user
from common.api import WriteThrottle
from common.tests.racing import run_together, succeeded

pytestmark = pytest.mark.django_db

STRONG = "a-long-unusual-passphrase"


@pytest.fixture
def anon(api):
    return api(None)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Limits and the registration notice interval live in the cache: start each test empty."""
    cache.clear()
    yield
    cache.clear()


def login(anon, email, password=PASSWORD):
    return anon.post("/auth/token/pair", {"email": email, "password": password})


# -- registration -------------------------------------------------------------------


def test_register_creates_user_and_returns_user_schema(anon):
    response = anon.post(
        "/auth/register",
        {
            "email": "New.Person@Example.com",
            "password": STRONG,
            "first_name": "Ada",
            "last_name": "Lovelace",
            "timezone": "Europe/Vienna",
        },
    )

    assert response.status_code == 201
    body = response.json()
    assert body["email"] == "new.person@example.com"
    assert body["display_name"] == "Ada Lovelace"
    assert body["timezone"] == "Europe/Vienna"
    assert body["language"] == "en"
    assert set(body) == {
        "id",
        "email",
        "first_name",
        "last_name",
        "preferred_name",
        "display_name",
        "language",
        "timezone",
    }
    user = User.objects.get(pk=body["id"])
    assert user.check_password(STRONG)


def test_registered_user_can_log_in(anon):
    anon.post("/auth/register", {"email": "fresh@example.com", "password": STRONG})

    assert login(anon, "fresh@example.com", STRONG).status_code == 200


def test_register_defaults_timezone_to_utc(anon):
    response = anon.post("/auth/register", {"email": "utc@example.com", "password": STRONG})

    assert response.status_code == 201
    assert response.json()["timezone"] == "UTC"


def test_register_answers_a_taken_address_like_a_new_one(anon):
    """Same status, same body (but the id) whether or not the address has an account;
    no second user, and the address's owner is told by e-mail (ADR 0011)."""
    owner = make_user("taken@example.com")
    body = {"password": STRONG, "first_name": "Ada", "timezone": "Europe/Berlin"}

    new = anon.post("/auth/register", {**body, "email": "Fresh@EXAMPLE.com"})
    taken = anon.post("/auth/register", {**body, "email": "Taken@EXAMPLE.com"})

    assert new.status_code == taken.status_code == 201
    new_body, taken_body = dict(new.json()), dict(taken.json())
    assert new_body.keys() == taken_body.keys()
    assert new_body.pop("id") != taken_body.pop("id")
    assert new_body.pop("email") == "fresh@example.com"
    assert taken_body.pop("email") == "taken@example.com"
    assert new_body.pop("display_name") == taken_body.pop("display_name") == "Ada"
    assert new_body == taken_body
    assert User.objects.filter(email="taken@example.com").count() == 1
    assert not User.objects.filter(pk=taken.json()["id"]).exists()
    owner.refresh_from_db()
    assert owner.check_password(PASSWORD) and owner.first_name == ""
    (notice,) = mail.outbox
    assert notice.to == ["taken@example.com"]
    text = notice.body
    assert "tried to create an Encore account with this e-mail address" in text
    assert "log in" in text and "Forgot your password?" in text


def test_a_new_address_gets_no_notice_and_its_account_works(anon):
    response = anon.post("/auth/register", {"email": "new@example.com", "password": STRONG})

    assert response.status_code == 201
    assert mail.outbox == []
    assert login(anon, "new@example.com", STRONG).status_code == 200


def test_a_taken_address_is_hashed_like_a_new_one(anon, monkeypatch):
    """Equal work: the password is hashed once in both cases (no timing oracle)."""
    from django.contrib.auth import base_user

    make_user("taken@example.com")
    hashed: list[str] = []
    real = base_user.make_password  # type: ignore[attr-defined]

    def counting(raw, *args, **kwargs):
        hashed.append(raw)
        return real(raw, *args, **kwargs)

    monkeypatch.setattr(base_user, "make_password", counting)  # what User.set_password calls

    for email in ("fresh@example.com", "taken@example.com"):
        hashed.clear()
        assert anon.post("/auth/register", {"email": email, "password": STRONG}).status_code == 201
        assert hashed == [STRONG], email


def test_the_registration_notice_goes_out_at_most_once_an_hour(anon, settings):
    make_user("taken@example.com")

    for _ in range(3):
        anon.post("/auth/register", {"email": "taken@example.com", "password": STRONG})

    assert len(mail.outbox) == 1
    cache.clear()  # the interval has passed
    anon.post("/auth/register", {"email": "taken@example.com", "password": STRONG})
    assert len(mail.outbox) == 2


def test_a_taken_address_registers_alike_with_the_broker_down(anon, monkeypatch):
    from accounts import tasks

    def refuse(*args, **kwargs):
        raise ConnectionError("Connection refused")

    make_user("taken@example.com")
    monkeypatch.setattr(tasks.send_registration_notice_task, "delay", refuse)

    response = anon.post("/auth/register", {"email": "taken@example.com", "password": STRONG})

    assert response.status_code == 201
    assert User.objects.count() == 1


def test_invalid_input_for_a_taken_address_names_only_the_invalid_fields(anon):
    make_user("taken@example.com")

    response = anon.post("/auth/register", {"email": "taken@example.com", "password": "short"})

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"password"}
    assert mail.outbox == []


@pytest.mark.parametrize("password", ["short", "password123", "12345678"])
def test_register_refuses_weak_password_and_writes_nothing(anon, password):
    response = anon.post("/auth/register", {"email": "weak@example.com", "password": password})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "password" in response.json()["errors"]
    assert not User.objects.exists()


def test_register_refuses_unknown_timezone_and_writes_nothing(anon):
    response = anon.post(
        "/auth/register",
        {"email": "tz@example.com", "password": STRONG, "timezone": "Mars/Olympus"},
    )

    assert response.status_code == 400
    assert "timezone" in response.json()["errors"]
    assert not User.objects.exists()


def test_register_reports_every_invalid_field_at_once(anon):
    response = anon.post(
        "/auth/register", {"email": "not-an-address", "password": "short", "timezone": "Nowhere"}
    )

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"email", "password", "timezone"}
    assert not User.objects.exists()


def test_register_without_password_is_a_schema_error(anon):
    response = anon.post("/auth/register", {"email": "nopass@example.com"})

    assert response.status_code == 422
    assert not User.objects.exists()


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


# -- password reset -----------------------------------------------------------------


def reset_code(message):
    """The uid and token of the reset link, as a person would copy them from the mail."""
    match = re.search(r"reset-password\?uid=(?P<uid>[\w-]+)&token=(?P<token>[\w-]+)", message.body)
    assert match, message.body
    return match["uid"], match["token"]


def test_password_reset_full_flow(anon):
    user = make_user("forgot@example.com")
    old_session = login(anon, "forgot@example.com").json()

    requested = anon.post("/auth/password-reset", {"email": "Forgot@Example.com"})

    assert requested.status_code == 202
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["forgot@example.com"]
    assert isinstance(message, EmailMultiAlternatives)
    assert message.alternatives[0][1] == "text/html"
    uid, token = reset_code(message)

    confirmed = anon.post(
        "/auth/password-reset/confirm", {"uid": uid, "token": token, "password": STRONG}
    )

    assert confirmed.status_code == 204
    user.refresh_from_db()
    assert user.check_password(STRONG)
    assert login(anon, "forgot@example.com", STRONG).status_code == 200
    assert login(anon, "forgot@example.com", PASSWORD).status_code == 401
    refresh = anon.post("/auth/token/refresh", {"refresh": old_session["refresh"]})
    assert refresh.status_code == 401, "a reset ends the sessions opened with the old password"


def test_password_reset_link_works_only_once(anon):
    make_user("once@example.com")
    anon.post("/auth/password-reset", {"email": "once@example.com"})
    uid, token = reset_code(mail.outbox[0])
    body = {"uid": uid, "token": token, "password": STRONG}
    assert anon.post("/auth/password-reset/confirm", body).status_code == 204

    again = anon.post(
        "/auth/password-reset/confirm", {**body, "password": "another-fine-passphrase"}
    )

    assert again.status_code == 400
    assert again.json()["code"] == "invalid_token"


def test_password_reset_for_unknown_email_is_accepted_silently(anon):
    response = anon.post("/auth/password-reset", {"email": "nobody@example.com"})

    assert response.status_code == 202
    assert mail.outbox == []


def test_a_reset_request_does_the_same_work_for_known_and_unknown_addresses(
    anon, monkeypatch, django_assert_num_queries
):
    """No timing oracle: the request only hands the address to a task, whoever it is."""
    from accounts import tasks

    make_user("known@example.com")
    handed: list[str] = []
    monkeypatch.setattr(
        tasks.send_password_reset_task,
        "apply_async",
        lambda args, kwargs, **options: handed.extend(args),
    )

    for email in ("known@example.com", "nobody@example.com"):
        with django_assert_num_queries(0):
            assert anon.post("/auth/password-reset", {"email": email}).status_code == 202

    assert handed == ["known@example.com", "nobody@example.com"]
    assert mail.outbox == []


def test_a_reset_requested_with_the_broker_down_is_sent_once_it_is_back(anon, monkeypatch):
    """202 at once, the request kept in the outbox, and the mail sent by the next flush
    (the real-broker version: common/tests/test_outbox_worker.py)."""
    from kombu.exceptions import OperationalError

    from accounts import tasks
    from common import outbox
    from common.models import OutboxMessage

    real_apply_async = tasks.send_password_reset_task.apply_async

    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    make_user("known@example.com")
    make_user("other@example.com")
    monkeypatch.setattr(tasks.send_password_reset_task, "apply_async", refuse)

    for address in ("known@example.com", "nobody@example.com"):
        assert anon.post("/auth/password-reset", {"email": address}).status_code == 202

    assert mail.outbox == []
    kept = list(OutboxMessage.objects.order_by("created_at").values_list("task_name", "args"))
    assert kept == [
        ("accounts.send_password_reset", ["known@example.com"]),
        ("accounts.send_password_reset", ["nobody@example.com"]),
    ]
    assert outbox.flush().published == 0, "still down: nothing published, nothing lost"

    monkeypatch.setattr(tasks.send_password_reset_task, "apply_async", real_apply_async)
    assert outbox.flush().published == 2
    assert [message.to for message in mail.outbox] == [["known@example.com"]]
    assert outbox.flush().published == 0, "published once"


def test_password_reset_for_inactive_account_sends_nothing(anon):
    make_user("inactive@example.com", is_active=False)

    response = anon.post("/auth/password-reset", {"email": "inactive@example.com"})

    assert response.status_code == 202
    assert mail.outbox == []


@pytest.mark.parametrize("tamper", ["token", "uid"])
def test_password_reset_confirm_refuses_bad_link(anon, tamper):
    user = make_user("tamper@example.com")
    anon.post("/auth/password-reset", {"email": "tamper@example.com"})
    uid, token = reset_code(mail.outbox[0])
    body = {"uid": uid, "token": token, "password": STRONG, tamper: "Zm9vYmFy-x"}

    response = anon.post("/auth/password-reset/confirm", body)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_token"
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_password_reset_confirm_refuses_weak_password_and_keeps_the_old_one(anon):
    user = make_user("weakreset@example.com")
    anon.post("/auth/password-reset", {"email": "weakreset@example.com"})
    uid, token = reset_code(mail.outbox[0])

    response = anon.post(
        "/auth/password-reset/confirm", {"uid": uid, "token": token, "password": "password"}
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "password" in response.json()["errors"]
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


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
