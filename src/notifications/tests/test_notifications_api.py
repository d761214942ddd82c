"""HTTP tests of the in-app inbox: /notifications, unread count, mark read, mark all read."""

import uuid
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from accounts.tests.factories import make_user
from common.api import WriteThrottle
from notifications.models import Notification

pytestmark = pytest.mark.django_db

ITEM_FIELDS = {"id", "notification_type", "title", "body", "context", "read_at", "created_at"}


def notify(user, *, minutes_ago: int = 0, read: bool = False, **fields) -> Notification:
    """A stored notification delivered in-app, created directly (the signal receiver is
    not under test; `in_app=False` makes one whose user did not get the in-app channel)."""
    fields.setdefault("in_app", True)
    fields.setdefault("notification_type", "event_open")
    fields.setdefault("title", "Doors open")
    fields.setdefault("body", "Registration is open.")
    fields.setdefault("context", {"event_id": str(uuid.uuid4())})
    notification = Notification.objects.create(user=user, **fields)
    created = timezone.now() - timedelta(minutes=minutes_ago)
    read_at = created + timedelta(seconds=1) if read else None
    Notification.objects.filter(pk=notification.pk).update(created_at=created, read_at=read_at)
    notification.refresh_from_db()
    return notification


def ids(response) -> list[str]:
    return [item["id"] for item in response.json()["results"]]


# -- authentication ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/notifications"),
        ("get", "/notifications/unread-count"),
        ("post", f"/notifications/{uuid.UUID(int=1)}/mark-read"),
        ("post", "/notifications/mark-all-read"),
    ],
)
def test_anonymous_callers_get_401(api, method, path):
    response = getattr(api(None), method)(path)

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


# -- list --------------------------------------------------------------------------------


def test_list_shows_own_notifications_newest_first(api, user):
    old = notify(user, minutes_ago=30, title="Old")
    new = notify(user, minutes_ago=1, title="New", context={"event_id": "e1", "n": 2})
    notify(make_user(), minutes_ago=0, title="Someone else's")

    response = api(user).get("/notifications")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    assert ids(response) == [str(new.pk), str(old.pk)]
    first = body["results"][0]
    assert set(first) == ITEM_FIELDS
    assert first["title"] == "New"
    assert first["notification_type"] == "event_open"
    assert first["context"] == {"event_id": "e1", "n": 2}
    assert first["read_at"] is None


@pytest.mark.parametrize(("unread", "expected"), [("true", ["unread"]), ("false", ["read"])])
def test_unread_filter(api, user, unread, expected):
    notify(user, minutes_ago=5, title="read", read=True)
    notify(user, minutes_ago=1, title="unread")

    response = api(user).get("/notifications", unread=unread)

    assert [item["title"] for item in response.json()["results"]] == expected


def test_list_without_filter_shows_read_and_unread(api, user):
    notify(user, minutes_ago=5, read=True)
    notify(user, minutes_ago=1)

    assert api(user).get("/notifications").json()["count"] == 2


def test_list_is_paginated(api, user):
    for minutes in range(3):
        notify(user, minutes_ago=minutes)

    first = api(user).get("/notifications", page_size=2).json()
    second = api(user).get("/notifications", page_size=2, page=2).json()

    assert first["count"] == 3
    assert len(first["results"]) == 2
    assert first["next"]
    assert len(second["results"]) == 1


@pytest.mark.parametrize("count", [3, 30])
def test_list_query_count_does_not_grow_with_rows(api, user, django_assert_num_queries, count):
    for minutes in range(count):
        notify(user, minutes_ago=minutes)
    client = api(user)  # issuing the token writes an OutstandingToken row: keep it outside

    # user lookup for the JWT, COUNT(*), one page
    with django_assert_num_queries(3):
        response = client.get("/notifications", page_size=100)

    assert len(response.json()["results"]) == count


# -- unread count ------------------------------------------------------------------------


def test_unread_count_counts_own_unread_only(api, user):
    notify(user)
    notify(user)
    notify(user, read=True)
    notify(make_user())

    response = api(user).get("/notifications/unread-count")

    assert response.status_code == 200
    assert response.json() == {"count": 2}


# -- mark read ---------------------------------------------------------------------------


def test_mark_read_marks_own_notification_and_returns_it(api, user):
    notification = notify(user)
    other = notify(user)

    response = api(user).post(f"/notifications/{notification.pk}/mark-read")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == ITEM_FIELDS
    assert body["id"] == str(notification.pk)
    assert body["read_at"] is not None
    notification.refresh_from_db()
    other.refresh_from_db()
    assert notification.read_at is not None
    assert other.read_at is None


def test_mark_read_twice_keeps_the_first_read_time(api, user):
    notification = notify(user, read=True)
    first_read = notification.read_at

    response = api(user).post(f"/notifications/{notification.pk}/mark-read")

    assert response.status_code == 200
    notification.refresh_from_db()
    assert notification.read_at == first_read


def test_cannot_mark_someone_elses_notification(api, user):
    theirs = notify(make_user())

    response = api(user).post(f"/notifications/{theirs.pk}/mark-read")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    theirs.refresh_from_db()
    assert theirs.read_at is None


def test_mark_read_of_unknown_id_is_404(api, user):
    response = api(user).post(f"/notifications/{uuid.uuid4()}/mark-read")

    assert response.status_code == 404


def test_mark_read_of_malformed_id_is_422(api, user):
    response = api(user).post("/notifications/not-a-uuid/mark-read")

    assert response.status_code == 422
    assert response.json()["code"] == "invalid"


# -- mark all read -----------------------------------------------------------------------


def test_mark_all_read_marks_own_unread_and_returns_how_many(api, user):
    notify(user)
    notify(user)
    already = notify(user, read=True)
    theirs = notify(make_user())
    client = api(user)

    response = client.post("/notifications/mark-all-read")

    assert response.status_code == 200
    assert response.json() == {"count": 2}
    assert not Notification.objects.filter(user=user, read_at__isnull=True).exists()
    assert Notification.objects.get(pk=already.pk).read_at == already.read_at
    assert Notification.objects.get(pk=theirs.pk).read_at is None
    assert client.get("/notifications/unread-count").json() == {"count": 0}
    assert client.post("/notifications/mark-all-read").json() == {"count": 0}


# -- throttling --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/notifications/mark-all-read", "/notifications/{id}/mark-read"])
def test_inbox_writes_are_throttled(api, user, settings, path):
    # The rate is read when the controllers are registered: send one request too many.
    settings.THROTTLE_ENABLED = True
    allowed = WriteThrottle().num_requests
    assert allowed is not None
    cache.clear()
    client = api(user)
    path = path.format(id=notify(user).pk)

    statuses = [client.post(path).status_code for _ in range(allowed + 1)]

    assert 429 not in statuses[:allowed]
    assert statuses[allowed] == 429
    cache.clear()
