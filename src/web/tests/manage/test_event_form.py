"""The event form: create and edit through the API's services, times in the event's zone,
service refusals next to their field and nothing saved."""

import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org, make_staff
from events.models import Event, EventRSVP, TicketTier, Venue
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


def _fields(**changes: str) -> dict[str, str]:
    year = timezone.now().year + 1
    fields = {
        "name": "Spring Concert",
        "description": "Choir and strings",
        "start": f"{year}-04-10T19:30",
        "end": f"{year}-04-10T22:00",
        "timezone": "Europe/Berlin",
        "venue": "",
        "max_attendees": "80",
        "visibility": "public",
        "registration": "rsvp",
    }
    fields.update(changes)
    return fields


def test_the_form_offers_every_field_by_label_and_save() -> None:
    owner = make_user()
    make_org(owner, slug="choir")
    page = body(signed_in_client(owner).get("/manage/choir/events/new"))
    for label in ("Name", "Description", "Start", "End", "Time zone", "Venue", "Capacity"):
        assert f">{label}</label>" in page
    assert "<legend>Registration</legend>" in page
    assert ">Visibility</label>" in page
    assert ">Save</button>" in page


def test_create_makes_a_draft_with_times_in_the_events_zone_and_shows_the_overview() -> None:
    owner = make_user(timezone="America/New_York")
    organization = make_org(owner, slug="choir")
    venue = Venue.objects.create(organization=organization, name="Town hall", capacity=200)
    client = signed_in_client(owner)
    response = client.post("/manage/choir/events/new", _fields(venue=str(venue.pk)))
    event = Event.objects.get(name="Spring Concert")
    assert response.status_code == 302
    assert response["Location"] == f"/manage/events/{event.pk}"
    year = timezone.now().year + 1
    assert event.start == datetime(year, 4, 10, 19, 30, tzinfo=BERLIN)
    assert event.end == datetime(year, 4, 10, 22, 0, tzinfo=BERLIN)
    assert event.timezone == "Europe/Berlin"
    assert event.status == Event.Status.DRAFT
    assert event.venue == venue
    assert event.max_attendees == 80
    assert not event.requires_ticket
    assert "Spring Concert" in body(client.get(response["Location"]))


def test_a_ticketed_event_gets_its_default_tier() -> None:
    owner = make_user()
    make_org(owner, slug="choir")
    signed_in_client(owner).post("/manage/choir/events/new", _fields(registration="tickets"))
    event = Event.objects.get(name="Spring Concert")
    assert event.requires_ticket
    assert TicketTier.objects.filter(event=event).count() == 1


def test_field_errors_appear_next_to_their_field_and_nothing_is_saved() -> None:
    owner = make_user()
    make_org(owner, slug="choir")
    client = signed_in_client(owner)
    year = timezone.now().year + 1
    # end before start: the form's check (the model's full_clean says it again below it)
    backwards = client.post("/manage/choir/events/new", _fields(end=f"{year}-04-09T10:00"))
    assert backwards.status_code == 400
    page = body(backwards)
    assert 'id="id_end_error"' in page
    assert "The end is before the start: choose a later end." in page
    # the shape of the input, checked by the form
    missing = client.post("/manage/choir/events/new", _fields(name="", start="tomorrow"))
    assert missing.status_code == 400
    assert 'id="id_name_error"' in body(missing)
    assert 'id="id_start_error"' in body(missing)
    assert not Event.objects.exists()


def test_edit_shows_the_times_in_the_events_zone_and_saves_through_the_patch_service() -> None:
    owner = make_user(timezone="Asia/Tokyo")
    organization = make_org(owner, slug="choir")
    start = datetime(timezone.now().year + 1, 6, 1, 18, 0, tzinfo=BERLIN)
    event = make_event(organization, name="Summer Gig", start=start, timezone="Europe/Berlin")
    client = signed_in_client(owner)
    form = body(client.get(f"/manage/events/{event.pk}/edit"))
    assert f'value="{start:%Y-%m-%dT%H:%M}"' in form
    assert 'value="Summer Gig"' in form
    changed = _fields(name="Summer Gig Moved", start=f"{start.year}-06-02T20:00", end="")
    response = client.post(f"/manage/events/{event.pk}/edit", changed)
    assert response.status_code == 302
    event.refresh_from_db()
    assert event.name == "Summer Gig Moved"
    assert event.start == datetime(start.year, 6, 2, 20, 0, tzinfo=BERLIN)
    assert event.end - event.start == timedelta(days=1)  # the length followed the start


def test_switching_to_tickets_with_rsvps_is_refused_under_registration() -> None:
    owner = make_user()
    organization = make_org(owner, slug="choir")
    event = make_event(organization, name="Busy Gig", timezone="UTC")
    EventRSVP.objects.create(event=event, user=make_user(), status=EventRSVP.Status.YES)
    response = signed_in_client(owner).post(
        f"/manage/events/{event.pk}/edit",
        _fields(name="Busy Gig", registration="tickets", timezone="UTC"),
    )
    assert response.status_code == 409
    assert 'id="id_registration_error"' in body(response)
    event.refresh_from_db()
    assert not event.requires_ticket
    assert event.name == "Busy Gig"


def test_a_venue_of_another_organisation_is_refused_on_the_venue_field() -> None:
    owner = make_user()
    make_org(owner, slug="choir")
    elsewhere = Venue.objects.create(organization=make_org(), name="Elsewhere")
    response = signed_in_client(owner).post(
        "/manage/choir/events/new", _fields(venue=str(elsewhere.pk))
    )
    assert response.status_code == 400
    assert 'id="id_venue_error"' in body(response)
    assert not Event.objects.exists()


def test_staff_need_create_event_and_edit_event() -> None:
    organization = make_org(slug="choir")
    event = make_event(organization)
    staff = make_staff(organization, create_event=False, edit_event=False)
    client = signed_in_client(staff)
    assert client.get("/manage/choir/events/new").status_code == 403
    assert client.post("/manage/choir/events/new", _fields()).status_code == 403
    assert client.get(f"/manage/events/{event.pk}/edit").status_code == 403
    assert client.post(f"/manage/events/{event.pk}/edit", _fields()).status_code == 403
    assert not Event.objects.filter(name="Spring Concert").exists()
