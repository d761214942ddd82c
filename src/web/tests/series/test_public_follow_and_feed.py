"""The public series page's "Follow series" / "Unfollow series" and its feed links."""

from typing import Any

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import make_org
from events.models import EventSeries, EventSeriesFollow, Organization
from web.tests.series.support import weekly_series

pytestmark = pytest.mark.django_db


def url(series: EventSeries) -> str:
    return f"/events/{series.organization.slug}/series/{series.slug}"


def follows(user: Any, series: EventSeries) -> bool:
    return EventSeriesFollow.objects.filter(
        user=user, event_series=series, is_archived=False
    ).exists()


def test_a_signed_in_viewer_follows_and_unfollows(client: Client) -> None:
    series = weekly_series(make_org())
    viewer = make_user()
    client.force_login(viewer)
    body = client.get(url(series)).content.decode()
    assert ">Follow series</button>" in body and "Unfollow series" not in body
    response = client.post(url(series) + "/follow")
    assert response.status_code == 302 and response["Location"] == url(series)
    assert follows(viewer, series)
    body = client.get(url(series)).content.decode()
    assert ">Unfollow series</button>" in body and ">Follow series<" not in body
    assert "You follow this series" in body
    assert client.post(url(series) + "/unfollow").status_code == 302
    assert not follows(viewer, series)
    assert EventSeriesFollow.objects.filter(user=viewer, event_series=series).exists()  # archived
    assert ">Follow series</button>" in client.get(url(series)).content.decode()


def test_following_twice_changes_nothing(client: Client) -> None:
    series = weekly_series(make_org())
    viewer = make_user()
    client.force_login(viewer)
    client.post(url(series) + "/follow")
    client.post(url(series) + "/follow")
    assert EventSeriesFollow.objects.filter(user=viewer, event_series=series).count() == 1


def test_an_anonymous_visitor_gets_a_log_in_link_and_no_button(client: Client) -> None:
    series = weekly_series(make_org())
    body = client.get(url(series)).content.decode()
    assert "Follow series" not in body
    assert "Log in to follow this series" in body
    response = client.post(url(series) + "/follow")
    assert response.status_code == 302 and response["Location"].startswith("/login?next=")
    assert not EventSeriesFollow.objects.exists()


def test_an_invisible_series_cannot_be_followed(client: Client) -> None:
    hidden = weekly_series(make_org(visibility=Organization.Visibility.PRIVATE))
    client.force_login(make_user())
    assert client.post(url(hidden) + "/follow").status_code == 404
    assert client.post(url(hidden) + "/unfollow").status_code == 404
    assert not EventSeriesFollow.objects.exists()


def test_a_follower_may_unfollow_a_series_that_became_invisible(client: Client) -> None:
    series = weekly_series(make_org())
    viewer = make_user()
    client.force_login(viewer)
    client.post(url(series) + "/follow")
    Organization.objects.filter(pk=series.organization.pk).update(
        visibility=Organization.Visibility.PRIVATE
    )
    assert client.post(url(series) + "/unfollow").status_code == 302
    assert not follows(viewer, series)


def test_subscribe_is_a_webcal_link_and_the_https_address_can_be_copied(
    client: Client, settings: Any
) -> None:
    settings.ENCORE_PUBLIC_URL = "https://events.example.org"
    series = weekly_series(make_org())
    body = client.get(url(series)).content.decode()
    feed = f"events.example.org/api/event-series/{series.pk}/calendar.ics"
    assert f'<a href="webcal://{feed}">Subscribe</a>' in body
    assert f'data-copy="https://{feed}"' in body and ">Copy feed link</button>" in body
    assert f'value="https://{feed}" readonly' in body  # the address without JavaScript
    assert 'role="status"' in body
    assert "web/series" in body and "series.js" in body


def test_a_signed_in_viewer_s_page_costs_a_fixed_number_of_queries(
    client: Client, django_assert_max_num_queries: Any
) -> None:
    series = weekly_series(make_org(), weekdays=[0, 1, 2, 3, 4, 5, 6], generation_window_weeks=8)
    client.force_login(make_user())
    client.post(url(series) + "/follow")
    with django_assert_max_num_queries(7):
        assert client.get(url(series)).status_code == 200


def test_a_german_viewer_reads_the_buttons_in_german(client: Client) -> None:
    series = weekly_series(make_org())
    client.force_login(make_user(language="de"))
    body = client.get(url(series)).content.decode()
    assert ">Serie folgen</button>" in body and ">Feed-Link kopieren</button>" in body
