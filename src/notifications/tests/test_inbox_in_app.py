"""The inbox shows exactly what was delivered in-app.

A notification whose user did not get the in_app channel (everything silenced, the type
turned off, in_app not among the chosen channels) is stored with its other deliveries
but is not listed, not counted, and cannot be marked read.
"""

from typing import Any

import pytest
from django.apps import apps
from django.core import mail
from django.db import transaction

from accounts.models import User
from accounts.tests.factories import make_user
from notifications.models import Notification, NotificationDelivery, NotificationPreference
from notifications.signals import notification_requested
from notifications.tests.builders import make_delivery, make_notification
from notifications.tests.contexts import event_context

pytestmark = pytest.mark.django_db


def send(user: User, notification_type: str = "event_open") -> Notification:
    """Request a notification through the signal and run its dispatch (as after commit)."""
    [(_receiver, notification)] = notification_requested.send(
        sender=None, notification_type=notification_type, user=user, context=event_context()
    )
    assert isinstance(notification, Notification)
    return notification


def inbox(api: Any, user: User) -> tuple[list[str], int]:
    client = api(user)
    listed = [item["id"] for item in client.get("/notifications").json()["results"]]
    count = client.get("/notifications/unread-count").json()["count"]
    return listed, count


# Preferences under which the person gets no in-app delivery, but maybe e-mail.
NOT_IN_APP = {
    "everything silenced": {"silence_all": True},
    "the type turned off": {"type_settings": {"event_open": {"enabled": False}}},
    "e-mail only": {"enabled_channels": ["email"]},
    "e-mail only for this type": {"type_settings": {"event_open": {"channels": ["email"]}}},
}


class TestDispatchDecidesTheInbox:
    def test_a_notification_delivered_in_app_is_listed_and_counted(
        self, api: Any, user: User, django_capture_on_commit_callbacks: Any
    ) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            notification = send(user)

        notification.refresh_from_db()
        assert notification.in_app is True
        assert inbox(api, user) == ([str(notification.pk)], 1)

    @pytest.mark.parametrize("prefs", NOT_IN_APP.values(), ids=NOT_IN_APP.keys())
    def test_without_the_in_app_channel_it_is_stored_but_not_in_the_inbox(
        self, api: Any, user: User, django_capture_on_commit_callbacks: Any, prefs: dict
    ) -> None:
        NotificationPreference.objects.create(user=user, **prefs)
        shown = make_notification(user, "event_open")
        Notification.objects.filter(pk=shown.pk).update(in_app=True)

        with django_capture_on_commit_callbacks(execute=True):
            hidden = send(user)

        hidden.refresh_from_db()
        assert hidden.in_app is False
        channels = set(hidden.deliveries.values_list("channel", flat=True))
        assert "in_app" not in channels
        assert inbox(api, user) == ([str(shown.pk)], 1)

    def test_email_still_goes_out_when_in_app_is_not_chosen(
        self, api: Any, user: User, django_capture_on_commit_callbacks: Any
    ) -> None:
        NotificationPreference.objects.create(user=user, enabled_channels=["email"])

        with django_capture_on_commit_callbacks(execute=True):
            send(user)

        assert [message.to for message in mail.outbox] == [[user.email]]
        assert inbox(api, user) == ([], 0)

    def test_before_dispatch_the_row_is_not_in_the_inbox_yet(
        self, api: Any, user: User, django_capture_on_commit_callbacks: Any
    ) -> None:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            send(user)

        assert inbox(api, user) == ([], 0)
        for callback in callbacks:
            callback()
        assert inbox(api, user)[1] == 1

    def test_dispatching_again_keeps_the_flag(
        self, user: User, django_capture_on_commit_callbacks: Any
    ) -> None:
        from notifications.service import dispatch

        with django_capture_on_commit_callbacks(execute=True):
            notification = send(user)
        dispatch.dispatch_notification(notification.pk)

        notification.refresh_from_db()
        assert notification.in_app is True
        assert notification.deliveries.filter(channel="in_app").count() == 1


class TestHiddenRowsCannotBeTouched:
    def test_mark_read_of_a_row_not_delivered_in_app_is_404(self, api: Any, user: User) -> None:
        hidden = make_notification(user, "event_open")  # never dispatched in-app

        response = api(user).post(f"/notifications/{hidden.pk}/mark-read")

        assert response.status_code == 404
        hidden.refresh_from_db()
        assert hidden.read_at is None

    def test_mark_all_read_counts_and_changes_inbox_rows_only(self, api: Any, user: User) -> None:
        shown = make_notification(user, "event_open")
        Notification.objects.filter(pk=shown.pk).update(in_app=True)
        hidden = make_notification(user, "event_open")

        response = api(user).post("/notifications/mark-all-read")

        assert response.json() == {"count": 1}
        hidden.refresh_from_db()
        assert hidden.read_at is None

    @pytest.mark.parametrize("hidden_rows", [2, 20])
    def test_list_query_count_is_fixed_with_hidden_rows(
        self, api: Any, user: User, django_assert_num_queries: Any, hidden_rows: int
    ) -> None:
        for _ in range(hidden_rows):
            make_notification(user, "event_open")
        for _ in range(3):
            shown = make_notification(user, "event_open")
            Notification.objects.filter(pk=shown.pk).update(in_app=True)
        client = api(user)

        # user lookup for the JWT, COUNT(*), one page
        with django_assert_num_queries(3):
            response = client.get("/notifications", page_size=100)

        assert response.json()["count"] == 3


def test_migration_keeps_rows_already_delivered_in_app_in_the_inbox(user: User) -> None:
    """0002 marks every existing row that has an in_app delivery row; others stay out."""
    import importlib

    migration = importlib.import_module("notifications.migrations.0002_notification_in_app")
    delivered = make_notification(user, "event_open")
    make_delivery(delivered, "in_app", status=NotificationDelivery.Status.SENT)
    emailed_only = make_notification(user, "event_open")
    make_delivery(emailed_only, "email", status=NotificationDelivery.Status.SENT)

    with transaction.atomic():
        migration.mark_delivered_in_app(apps, None)

    flags = dict(Notification.objects.values_list("pk", "in_app"))
    assert flags == {delivered.pk: True, emailed_only.pk: False}


def test_another_persons_delivered_row_stays_theirs(api: Any, user: User) -> None:
    other = make_user()
    theirs = make_notification(other, "event_open")
    Notification.objects.filter(pk=theirs.pk).update(in_app=True)

    assert inbox(api, user) == ([], 0)
    assert inbox(api, other) == ([str(theirs.pk)], 1)
