"""Checking RSVP attendees in from `/manage/events/<id>`: the button, the POST (JS off and
htmx), refusals in the row, the permission, the CSV column and the fixed query count."""

import csv
import io
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, make_event, make_org, make_staff
from events.models import Event, EventRSVP
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db


def _soon(**fields: object) -> Event:
    """An RSVP event whose check-in window (start − 1 h .. end) is open now."""
    fields.setdefault("start", timezone.now() + timedelta(minutes=30))
    return make_event(make_org(), **fields)


def _rsvp(event: Event) -> EventRSVP:
    (user,) = fill_with_rsvps(event, 1)
    return EventRSVP.objects.get(event=event, user=user)


def _url(event: Event, rsvp: EventRSVP) -> str:
    return f"/manage/events/{event.pk}/rsvps/{rsvp.pk}/checkin"


def test_each_yes_rsvp_row_has_a_check_in_button_posting_to_its_rsvp() -> None:
    event = _soon()
    people = fill_with_rsvps(event, 2)
    page = body(signed_in_client(event.organization.owner).get(f"/manage/events/{event.pk}"))
    assert page.count(">Check in</button>") == 2
    for person in people:
        rsvp = EventRSVP.objects.get(event=event, user=person)
        assert f'action="{_url(event, rsvp)}"' in page
        assert f'hx-post="{_url(event, rsvp)}"' in page
    assert "RSVP: no check-in" not in page


def test_check_in_without_js_marks_the_rsvp_and_the_row_says_so() -> None:
    event = _soon()
    rsvp = _rsvp(event)
    client = signed_in_client(event.organization.owner)
    response = client.post(_url(event, rsvp))
    assert response.status_code == 302
    assert response["Location"] == f"/manage/events/{event.pk}#attendees"
    rsvp.refresh_from_db()
    assert rsvp.checked_in_at is not None
    after = body(client.get(f"/manage/events/{event.pk}"))
    assert "Checked in" in after
    assert f'<time datetime="{rsvp.checked_in_at.isoformat()}' in after
    assert ">Check in</button>" not in after


def test_a_refused_check_in_shows_in_its_row_and_changes_nothing() -> None:
    event = _soon(start=timezone.now() + timedelta(days=5))  # the window is not open yet
    rsvp = _rsvp(event)
    response = signed_in_client(event.organization.owner).post(_url(event, rsvp))
    assert response.status_code == 400
    page = body(response)
    assert 'class="refusal" role="alert">Check-in is not open for this event right now.' in page
    assert page.index(rsvp.user.email) < page.index('class="refusal"')
    assert page.count('class="refusal"') == 1
    rsvp.refresh_from_db()
    assert rsvp.checked_in_at is None


def test_a_refusal_for_someone_no_longer_listed_shows_above_the_table() -> None:
    event = _soon()
    fill_with_rsvps(event, 1)
    gone = EventRSVP.objects.create(event=event, user=make_user(), status="no")  # a stale page
    response = signed_in_client(event.organization.owner).post(_url(event, gone))
    assert response.status_code == 409
    page = body(response)
    assert 'class="refusal" role="alert">Only someone who answered yes can be checked in.' in page
    gone.refresh_from_db()
    assert gone.checked_in_at is None


def test_check_in_from_htmx_answers_with_the_row_and_an_announcement() -> None:
    event = _soon()
    rsvp = _rsvp(event)
    client = signed_in_client(event.organization.owner)
    response = client.post(_url(event, rsvp), headers={"HX-Request": "true"})
    assert response.status_code == 200
    answer = body(response)
    assert answer.startswith("<tr>")
    assert rsvp.user.email in answer
    assert "Checked in" in answer
    assert ">Check in</button>" not in answer
    assert f"{rsvp.user.display_name} is checked in." in answer
    assert 'id="check-in-status" role="status"' in answer
    rsvp.refresh_from_db()
    first = rsvp.checked_in_at
    assert first is not None
    again = body(client.post(_url(event, rsvp), headers={"HX-Request": "true"}))
    assert 'class="refusal" role="alert">This attendee is already checked in.' in again
    rsvp.refresh_from_db()
    assert rsvp.checked_in_at == first


def test_check_in_needs_check_in_attendees() -> None:
    event = _soon()
    rsvp = _rsvp(event)
    staff = make_staff(event.organization, check_in_attendees=False, manage_event=True)
    client = signed_in_client(staff)
    page = body(client.get(f"/manage/events/{event.pk}"))
    assert rsvp.user.email in page
    assert ">Check in</button>" not in page
    assert client.post(_url(event, rsvp)).status_code == 403
    rsvp.refresh_from_db()
    assert rsvp.checked_in_at is None


def test_check_in_denials_anonymous_another_organisation_another_event() -> None:
    event = _soon()
    rsvp = _rsvp(event)
    anonymous = Client().post(_url(event, rsvp))
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/login?next=")
    stranger = make_staff(make_org(), check_in_attendees=True)  # sees the public event
    assert signed_in_client(stranger).post(_url(event, rsvp)).status_code == 403  # as the API
    other_event = make_event(event.organization)
    assert (
        signed_in_client(event.organization.owner)
        .post(f"/manage/events/{other_event.pk}/rsvps/{rsvp.pk}/checkin")
        .status_code
        == 404
    )
    rsvp.refresh_from_db()
    assert rsvp.checked_in_at is None


def test_door_staff_with_only_check_in_attendees_may_post() -> None:
    event = _soon()
    rsvp = _rsvp(event)
    door = make_staff(event.organization, check_in_attendees=True, manage_event=False)
    assert signed_in_client(door).post(_url(event, rsvp)).status_code == 302
    rsvp.refresh_from_db()
    assert rsvp.checked_in_at is not None


def _csv_rows(client: Client, event: Event) -> list[list[str]]:
    response = client.get(f"/manage/events/{event.pk}/attendees.csv")
    text = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    return list(csv.reader(io.StringIO(text)))


def test_csv_has_the_rsvp_check_in_time_in_the_checked_in_at_column() -> None:
    event = _soon()
    checked, waiting = fill_with_rsvps(event, 2)
    at = timezone.now().replace(microsecond=0)
    EventRSVP.objects.filter(event=event, user=checked).update(checked_in_at=at)
    header, *rows = _csv_rows(signed_in_client(event.organization.owner), event)
    column = header.index("checked_in_at")
    by_email = {row[1]: row[column] for row in rows}
    assert by_email == {checked.email: at.isoformat(), waiting.email: ""}


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_overview_queries_stay_fixed_with_buttons_and_checked_in_rows() -> None:
    event = _soon()
    staff = make_staff(event.organization, manage_event=True, check_in_attendees=True)
    client = signed_in_client(staff)
    fill_with_rsvps(event, 1)
    url = f"/manage/events/{event.pk}"
    one = _queries(client, url)
    fill_with_rsvps(event, 60)
    half = list(EventRSVP.objects.filter(event=event).values_list("pk", flat=True)[:30])
    EventRSVP.objects.filter(pk__in=half).update(checked_in_at=timezone.now())
    page = body(client.get(url))
    assert ">Check in</button>" in page and "Checked in" in page
    assert _queries(client, url) == one
    assert one <= 11, one  # 10, and the figures' check-in count
