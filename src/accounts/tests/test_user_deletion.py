"""The accounts side of deleting users: ask every app, then announce, then delete.

accounts cannot see what users hold elsewhere (the events side has its own tests in
`events/tests/test_user_deletion_*.py`); these tests stand in for such an app with
receivers of their own and show the order of the steps, that a refusal anywhere stops
everything before anything is released, and that the admin shows it as a message.
"""

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from accounts.errors import UserDeletionRefused
from accounts.models import User
from accounts.service import user_deletion
from accounts.signals import user_deletion_requested, user_departing
from accounts.tests.factories import make_user

pytestmark = pytest.mark.django_db


class NotYet(UserDeletionRefused):
    default_code = "not_yet"


class StandInApp:
    """Receivers of both signals: records the calls, refuses the users in `refuse`."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self.refuse: set[str] = set()

    def requested(self, sender: type[User], users: list[User], **_: Any) -> None:
        self.calls.append(("requested", [user.email for user in users]))
        for user in users:
            if user.email in self.refuse:
                raise NotYet(f"{user.email} still holds something.")

    def departing(self, sender: type[User], users: list[User], **_: Any) -> None:
        self.calls.append(("departing", [user.email for user in users]))
        # What is released must still be there to release: the rows are not deleted yet.
        assert User.objects.filter(pk__in=[user.pk for user in users]).count() == len(users)


@pytest.fixture
def app() -> Iterator[StandInApp]:
    stand_in = StandInApp()
    user_deletion_requested.connect(stand_in.requested, dispatch_uid="test-requested")
    user_departing.connect(stand_in.departing, dispatch_uid="test-departing")
    yield stand_in
    user_deletion_requested.disconnect(dispatch_uid="test-requested")
    user_departing.disconnect(dispatch_uid="test-departing")


@pytest.fixture
def operator_client() -> Client:
    client = Client()
    client.force_login(make_user(is_staff=True, is_superuser=True))
    return client


def messages_of(response: Any) -> list[str]:
    """Messages not shown yet (a redirect not followed keeps earlier ones)."""
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_every_user_is_asked_about_then_announced_then_deleted(app: StandInApp) -> None:
    a, b = make_user("a@example.com"), make_user("b@example.com")

    assert user_deletion.delete_users([a, b]) == 2

    assert app.calls == [
        ("requested", ["a@example.com", "b@example.com"]),
        ("departing", ["a@example.com", "b@example.com"]),
    ]
    assert not User.objects.filter(pk__in=[a.pk, b.pk]).exists()


def test_a_refusal_of_one_user_stops_all_before_anything_is_released(app: StandInApp) -> None:
    a, b = make_user("a@example.com"), make_user("b@example.com")
    app.refuse = {"b@example.com"}

    with pytest.raises(NotYet) as refused:
        user_deletion.delete_users([a, b])

    assert (refused.value.status_code, refused.value.code) == (409, "not_yet")
    assert [step for step, _ in app.calls] == ["requested"]
    assert User.objects.filter(pk__in=[a.pk, b.pk]).count() == 2


def test_deleting_nobody_asks_nobody(app: StandInApp) -> None:
    assert user_deletion.delete_users([]) == 0
    assert app.calls == []


def test_the_admin_delete_page_goes_through_the_service(
    app: StandInApp, operator_client: Client
) -> None:
    user = make_user("leaving@example.com")

    response = operator_client.post(
        reverse("admin:accounts_user_delete", args=[user.pk]), {"post": "yes"}
    )

    assert response.status_code == 302
    assert ("departing", ["leaving@example.com"]) in app.calls
    assert not User.objects.filter(pk=user.pk).exists()


def test_a_refusal_on_the_admin_delete_page_is_a_message_and_deletes_nothing(
    app: StandInApp, operator_client: Client
) -> None:
    user = make_user("held@example.com")
    app.refuse = {"held@example.com"}

    response = operator_client.post(
        reverse("admin:accounts_user_delete", args=[user.pk]), {"post": "yes"}
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("admin:accounts_user_change", args=[user.pk])
    assert messages_of(response) == ["held@example.com still holds something."]
    assert User.objects.filter(pk=user.pk).exists()
    assert all(step == "requested" for step, _ in app.calls)


def test_a_refusal_that_comes_up_while_deleting_rolls_the_admin_back(
    app: StandInApp, operator_client: Client
) -> None:
    """The check passed, then something blocking appeared (a race): no log entry, no
    deletion, the message instead of a 500."""
    user = make_user("raced@example.com")

    def refuse_late(sender: type[User], users: list[User], **_: Any) -> None:
        raise NotYet("Appeared meanwhile.")

    user_departing.connect(refuse_late, dispatch_uid="test-late")
    try:
        single = operator_client.post(
            reverse("admin:accounts_user_delete", args=[user.pk]), {"post": "yes"}
        )
        bulk = operator_client.post(
            reverse("admin:accounts_user_changelist"),
            {"action": "delete_selected", "_selected_action": [str(user.pk)], "post": "yes"},
        )
    finally:
        user_departing.disconnect(dispatch_uid="test-late")

    assert single.status_code == bulk.status_code == 302
    assert messages_of(single) == ["Appeared meanwhile."]
    assert messages_of(bulk)[-1] == "Appeared meanwhile."
    assert User.objects.filter(pk=user.pk).exists()
    assert not LogEntry.objects.filter(object_id=str(user.pk)).exists()


def test_delete_selected_goes_through_the_service_and_refuses_as_a_whole(
    app: StandInApp, operator_client: Client
) -> None:
    a, b = make_user("a@example.com"), make_user("b@example.com")
    changelist = reverse("admin:accounts_user_changelist")
    selection = {"action": "delete_selected", "_selected_action": [str(a.pk), str(b.pk)]}
    app.refuse = {"b@example.com"}

    refused = operator_client.post(changelist, {**selection, "post": "yes"})

    assert refused.status_code == 302
    assert messages_of(refused) == ["b@example.com still holds something."]
    assert User.objects.filter(pk__in=[a.pk, b.pk]).count() == 2

    app.refuse = set()
    done = operator_client.post(changelist, {**selection, "post": "yes"})

    assert messages_of(done)[-1] == "Successfully deleted 2 users."
    assert ("departing", sorted(["a@example.com", "b@example.com"])) in [
        (step, sorted(emails)) for step, emails in app.calls
    ]
    assert not User.objects.filter(pk__in=[a.pk, b.pk]).exists()
