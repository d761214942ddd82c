"""HTTP tests of the anonymous /auth/password-reset routes: the reset flow, a link that works
once, the same work for known and unknown addresses, and refused confirmations.
"""

import re

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives

from accounts.tests.auth_support import STRONG, _fresh_cache, anon, login
from accounts.tests.factories import PASSWORD, make_user

__all__ = ["_fresh_cache", "anon"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


# -- password reset -----------------------------------------------------------------


def reset_code(message):
    """The uid and token of the reset link, as a person would copy them from the mail."""
    match = re.search(r"password-reset/(?P<uid>[\w-]+)/(?P<token>[\w-]+)", message.body)
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
