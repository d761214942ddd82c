"""`/manage`, `/manage/organizations/new`, `/manage/<org_slug>`: content, links, queries."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org, make_staff
from events.models import Event, EventSeries, Organization
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db


def test_manage_lists_the_organisations_owned_or_staffed_each_a_link() -> None:
    user = make_user()
    owned = make_org(user, name="Owned Club", slug="owned-club")
    staffed = make_org(name="Staffed Club", slug="staffed-club")
    make_staff(staffed, user)
    make_org(name="Other Club", slug="other-club")
    page = body(signed_in_client(user).get("/manage"))
    assert f'<a href="/manage/{owned.slug}">Owned Club</a>' in page
    assert f'<a href="/manage/{staffed.slug}">Staffed Club</a>' in page
    assert "Other Club" not in page
    assert 'href="/manage/organizations/new">New organisation</a>' in page


def test_new_organisation_is_created_through_the_service_owned_by_the_user() -> None:
    user = make_user()
    client = signed_in_client(user)
    form = client.get("/manage/organizations/new")
    assert form.status_code == 200
    assert ">Save</button>" in body(form)
    response = client.post(
        "/manage/organizations/new",
        {"name": "Chess Friends", "timezone": "Europe/Berlin", "description": "Weekly games"},
    )
    organization = Organization.objects.get(name="Chess Friends")
    assert response.status_code == 302
    assert response["Location"] == f"/manage/{organization.slug}"
    assert organization.owner == user
    assert organization.timezone == "Europe/Berlin"
    assert organization.slug == "chess-friends"


def test_new_organisation_errors_stay_next_to_the_field_and_nothing_is_saved() -> None:
    make_org(name="Taken Name", slug="taken-name")
    client = signed_in_client(make_user())
    blank = client.post("/manage/organizations/new", {"name": " ", "timezone": "UTC"})
    assert blank.status_code == 400
    assert 'id="id_name_error"' in body(blank)
    taken = client.post("/manage/organizations/new", {"name": "Taken Name", "timezone": "UTC"})
    assert taken.status_code in (400, 409)
    assert 'id="id_name_error"' in body(taken)
    assert Organization.objects.filter(name="Taken Name").count() == 1


def test_organisation_page_upcoming_events_first_then_series_and_past() -> None:
    owner = make_user()
    organization = make_org(owner, name="Film Club", slug="film-club")
    now = timezone.now()
    later = make_event(organization, name="Later Show", start=now + timedelta(days=9))
    sooner = make_event(
        organization, name="Sooner Show", start=now + timedelta(days=2), status="draft"
    )
    past = make_event(
        organization, name="Old Show", start=now - timedelta(days=3), end=now - timedelta(days=2)
    )
    series = EventSeries.objects.create(organization=organization, name="Monday Films", slug="mf")
    page = body(signed_in_client(owner).get("/manage/film-club"))
    assert f'<a href="/manage/events/{sooner.pk}">Sooner Show</a>' in page
    assert f'<a href="/manage/events/{later.pk}">Later Show</a>' in page
    assert f'<a href="/manage/events/{past.pk}">Old Show</a>' in page
    assert f'<a href="/manage/series/{series.pk}">Monday Films</a>' in page
    assert page.index("Sooner Show") < page.index("Later Show") < page.index("Old Show")
    assert 'href="/manage/film-club/events/new">New event</a>' in page
    assert 'href="/manage/film-club/series/new">New series</a>' in page


def test_staff_without_create_event_see_no_new_event_link() -> None:
    organization = make_org(slug="no-create")
    staff = make_staff(organization, create_event=False)
    page = body(signed_in_client(staff).get("/manage/no-create"))
    assert "New event" not in page


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_organisation_page_costs_the_same_queries_for_one_event_or_many() -> None:
    organization = make_org(slug="busy-club")
    staff = make_staff(organization)
    client = signed_in_client(staff)
    make_event(organization)
    one = _queries(client, "/manage/busy-club")
    now = timezone.now()
    for n in range(8):
        make_event(organization, start=now + timedelta(days=n + 1))
        make_event(organization, start=now - timedelta(days=n + 3), end=now - timedelta(days=n + 2))
        EventSeries.objects.create(organization=organization, name=f"S{n}", slug=f"s{n}")
    assert Event.objects.filter(organization=organization).count() == 17
    assert _queries(client, "/manage/busy-club") == one
    assert one <= 10


def test_manage_home_costs_the_same_queries_for_one_organisation_or_many() -> None:
    user = make_user()
    make_org(user)
    client = signed_in_client(user)
    one = _queries(client, "/manage")
    for _ in range(5):
        make_staff(make_org(), user)
    assert _queries(client, "/manage") == one
