"""`/me/notifications`: the in-app inbox, newest first, unread marked, "Mark all as read"."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from common import links
from events.core.tests.factories import make_event, make_org
from notifications.models import Notification
from web.tests.me.support import notify, signed_in_client

pytestmark = pytest.mark.django_db


def test_anonymous_visitors_go_to_the_log_in_page_first(client: Client) -> None:
    response = client.get("/me/notifications")
    assert response["Location"] == "/login?next=%2Fme%2Fnotifications"


def test_newest_first_unread_marked_in_words_and_each_links_to_its_page() -> None:
    user = make_user()
    gala = make_event(name="Gala")
    older = notify(user, "Older news", gala, read_at=timezone.now())
    Notification.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(hours=1))
    notify(user, "Fresh news", gala)
    notify(make_user(), "Not yours", gala)

    body = signed_in_client(user).get("/me/notifications").content.decode()

    assert body.index("Fresh news") < body.index("Older news")
    assert "Not yours" not in body
    assert body.count('<strong class="me-badge">Unread</strong>') == 1
    assert body.index("Unread</strong>") < body.index("Fresh news") < body.index("Older news")
    assert f'<a href="/events/{gala.pk}">Fresh news</a>' in body
    assert "1 unread notification" in body


def test_a_series_digest_links_to_the_public_series_page() -> None:
    user = make_user()
    org = make_org(slug="choir")
    url = links.series_url(org.slug, "tuesdays")
    notify(
        user, "New dates", notification_type="series_events_generated", context={"series_url": url}
    )

    body = signed_in_client(user).get("/me/notifications").content.decode()

    assert '<a href="/events/choir/series/tuesdays">New dates</a>' in body


def test_a_link_outside_encore_is_not_linked() -> None:
    user = make_user()
    notify(user, "Odd one", context={"event_url": "https://evil.example/events/1"})

    body = signed_in_client(user).get("/me/notifications").content.decode()

    assert "evil.example" not in body
    assert "Odd one" in body


def test_mark_all_as_read_is_a_post_that_marks_only_mine_and_comes_back() -> None:
    user, other = make_user(), make_user()
    notify(user, "One")
    notify(user, "Two")
    theirs = notify(other, "Theirs")
    client = signed_in_client(user)
    assert (
        'hx-post="/me/notifications/mark-all-read"'
        in client.get("/me/notifications").content.decode()
    )
    assert client.get("/me/notifications/mark-all-read").status_code == 405

    response = client.post("/me/notifications/mark-all-read")

    assert response.status_code == 302
    assert response["Location"] == "/me/notifications"
    assert not Notification.objects.filter(user=user, read_at__isnull=True).exists()
    theirs.refresh_from_db()
    assert theirs.read_at is None
    page = client.get("/me/notifications").content.decode()
    assert "2 notifications marked as read." in page
    assert "me-badge" not in page
    assert "Mark all as read" not in page


def test_the_inbox_is_paginated_twenty_a_page() -> None:
    user = make_user()
    start = timezone.now()
    for n in range(25):
        row = notify(user, f"Item {n:02d}")
        Notification.objects.filter(pk=row.pk).update(created_at=start + timedelta(seconds=n))
    client = signed_in_client(user)

    first = client.get("/me/notifications").content.decode()
    second = client.get("/me/notifications?page=2").content.decode()

    assert "Item 24" in first and "Item 05" in first and "Item 04" not in first
    assert "Item 04" in second and "Item 00" in second and "Item 05" not in second
    assert 'href="?page=2"' in first


def test_the_page_costs_the_same_queries_for_one_or_many_notifications(
    django_assert_num_queries,
) -> None:
    few, many = make_user(), make_user()
    gala = make_event()
    notify(few, "Only one", gala)
    for n in range(30):
        notify(many, f"Many {n}", gala)
    client_few, client_many = signed_in_client(few), signed_in_client(many)

    # session, user, page count, page rows, unread count
    with django_assert_num_queries(5):
        client_few.get("/me/notifications")
    with django_assert_num_queries(5):
        client_many.get("/me/notifications")
