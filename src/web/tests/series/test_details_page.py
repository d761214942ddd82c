"""`/manage/series/{id}/details`: "Edit series" (name, description, slug)."""

import pytest
from django.test import Client

from events.core.tests.factories import make_org, make_staff
from events.models import EventSeries
from web.tests.series.support import weekly_series

pytestmark = pytest.mark.django_db


def url(series: EventSeries) -> str:
    return f"/manage/series/{series.pk}/details"


def test_the_series_page_links_the_form(client: Client) -> None:
    series = weekly_series(make_org())
    client.force_login(series.organization.owner)
    body = client.get(f"/manage/series/{series.pk}").content.decode()
    assert f'<a href="{url(series)}">Edit series</a>' in body


def test_saving_renames_and_the_old_address_redirects(client: Client) -> None:
    series = weekly_series(make_org(), slug="tuesday-run")
    org = series.organization
    client.force_login(org.owner)
    page = client.get(url(series)).content.decode()
    assert 'value="tuesday-run"' in page
    response = client.post(
        url(series), {"name": "Evening run", "description": "5 km", "slug": "evening-run"}
    )
    assert response.status_code == 302
    assert response["Location"] == f"/manage/series/{series.pk}"
    series.refresh_from_db()
    assert (series.name, series.description, series.slug) == ("Evening run", "5 km", "evening-run")
    moved = client.get(f"/events/{org.slug}/series/tuesday-run")
    assert moved.status_code == 301
    assert moved["Location"] == f"/events/{org.slug}/series/evening-run"


def test_a_taken_slug_is_shown_next_to_the_field(client: Client) -> None:
    org = make_org()
    weekly_series(org, slug="taken")
    series = weekly_series(org, slug="mine", name="Mine")
    client.force_login(org.owner)
    response = client.post(url(series), {"name": "Other", "description": "", "slug": "taken"})
    assert response.status_code == 409
    assert "Another series uses or used this slug." in response.content.decode()
    series.refresh_from_db()
    assert (series.name, series.slug) == ("Mine", "mine")


def test_a_bad_slug_is_400_and_saves_nothing(client: Client) -> None:
    series = weekly_series(make_org(), slug="mine", name="Mine")
    client.force_login(series.organization.owner)
    response = client.post(url(series), {"name": "Other", "slug": "not a slug"})
    assert response.status_code == 400
    series.refresh_from_db()
    assert (series.name, series.slug) == ("Mine", "mine")


def test_permissions(client: Client) -> None:
    series = weekly_series(make_org())
    assert client.get(url(series)).status_code == 302  # to the log-in page
    client.force_login(make_staff(series.organization))
    assert client.get(url(series)).status_code == 403
    assert client.post(url(series), {"name": "X", "slug": "x"}).status_code == 403
    client.force_login(make_staff(series.organization, edit_event_series=True))
    assert client.get(url(series)).status_code == 200


def test_the_event_form_of_a_template_sends_the_organiser_to_the_series(client: Client) -> None:
    """The template's schedule belongs to the rule: its own event form (which would save
    a start and an end) is not offered; "Edit template" is, for GET and POST alike."""
    series = weekly_series(make_org())
    template = series.template_event
    assert template is not None
    start = template.start
    client.force_login(series.organization.owner)

    shown = client.get(f"/manage/events/{template.pk}/edit")
    sent = client.post(f"/manage/events/{template.pk}/edit", {"name": "Moved"})

    for response in (shown, sent):
        assert response.status_code == 302
        assert response["Location"] == f"/manage/series/{series.pk}/template"
    template.refresh_from_db()
    assert (template.name != "Moved", template.start) == (True, start)
