"""The event form refuses what a person can mistype, next to the field, saving nothing:
a new start in the past, an end before the start, a capacity below the seats taken, a
name longer than the database holds. Each help text says the rule beforehand."""

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, make_event, make_org
from events.models import Event
from web.tests.manage.helpers import body, signed_in_client
from web.tests.manage.test_event_form import _fields

pytestmark = pytest.mark.django_db


def _local(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M}"


def _error(page: str, field: str) -> str:
    match = re.search(rf'<ul class="field-errors" id="id_{field}_error">(.*?)</ul>', page, re.S)
    assert match is not None, f"no error next to {field}"
    return match.group(1)


def _new(owner: User, **changes: str) -> Any:
    return signed_in_client(owner).post("/manage/choir/events/new", _fields(**changes))


def _edit(owner: User, event: Event, **changes: str) -> Any:
    changes.setdefault("name", event.name)
    changes.setdefault("timezone", "UTC")
    return signed_in_client(owner).post(f"/manage/events/{event.pk}/edit", _fields(**changes))


@pytest.fixture
def owner() -> User:
    user = make_user()
    make_org(user, slug="choir")
    return user


def test_a_new_event_may_not_start_in_the_past(owner: User) -> None:
    yesterday = timezone.now() - timedelta(days=1)
    response = _new(owner, start=_local(yesterday), end="", timezone="UTC")
    assert response.status_code == 400
    assert "The start is in the past: choose a time to come." in _error(body(response), "start")
    assert not Event.objects.exists()


def test_an_end_before_the_start_is_refused_next_to_the_end(owner: User) -> None:
    year = timezone.now().year + 1
    response = _new(owner, start=f"{year}-04-10T19:30", end=f"{year}-04-10T18:00")
    assert response.status_code == 400
    assert "The end is before the start: choose a later end." in _error(body(response), "end")
    assert not Event.objects.exists()


def test_a_name_longer_than_the_database_holds_is_refused(owner: User) -> None:
    response = _new(owner, name="x" * 201)
    page = body(response)
    assert response.status_code == 400
    assert "at most 200 characters" in _error(page, "name")
    assert 'maxlength="200"' in page
    assert Event._meta.get_field("name").max_length == 200  # the help text's number
    assert not Event.objects.exists()


def test_the_help_texts_say_the_rules(owner: User) -> None:
    page = body(signed_in_client(owner).get("/manage/choir/events/new"))
    assert "At most 200 characters." in page
    assert "A new event starts in the future, not in the past." in page
    assert "Not before the start. Empty: a day after the start." in page


def test_an_event_that_began_keeps_its_dates_through_an_edit(owner: User) -> None:
    organization = owner.owned_organizations.get()
    began = (timezone.now() - timedelta(hours=1)).replace(second=17)
    event = make_event(organization, name="Running", start=began, timezone="UTC")
    response = _edit(owner, event, name="Still running", start=_local(began), end="")
    assert response.status_code == 302, body(response)[:2000]
    event.refresh_from_db()
    assert event.name == "Still running"
    # …but it cannot be moved to another time in the past
    earlier = _edit(owner, event, start=_local(began - timedelta(days=1)), end="")
    assert earlier.status_code == 400
    assert "The start is in the past" in _error(body(earlier), "start")
    event.refresh_from_db()
    assert event.start == began


def test_capacity_below_the_seats_taken_is_refused_with_the_reason(owner: User) -> None:
    organization = owner.owned_organizations.get()
    event = make_event(organization, name="Busy", max_attendees=10, timezone="UTC")
    fill_with_rsvps(event, 6)
    form = body(signed_in_client(owner).get(f"/manage/events/{event.pk}/edit"))
    assert "0 or empty: no limit. At least the 6 seats already taken." in form
    response = _edit(owner, event, max_attendees="5")
    assert response.status_code == 400
    reason = _error(body(response), "max_attendees")
    assert "6 seats are already taken: the capacity cannot be lower." in reason
    event.refresh_from_db()
    assert event.max_attendees == 10
    assert _edit(owner, event, max_attendees="6").status_code == 302
    assert _edit(owner, event, max_attendees="0").status_code == 302  # no limit is fine
