"""RSVP check-in: `admin_rsvp_service.check_in_rsvp` and
`POST /event-admin/{event_id}/rsvps/{rsvp_id}/check-in` (`check_in_attendees`)."""

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from accounts.tests.factories import make_user
from common.errors import Conflict, NotFound
from events.core.selectors.personal_data import personal_data
from events.core.services import admin_rsvp_service
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import fill_with_rsvps, make_event, make_staff
from events.models import Event, EventRSVP
from events.ticketing.errors import OutsideCheckInWindow

pytestmark = pytest.mark.django_db


def _url(event: Event, rsvp: EventRSVP) -> str:
    return f"/event-admin/{event.pk}/rsvps/{rsvp.pk}/check-in"


def _yes(event: Event) -> EventRSVP:
    (user,) = fill_with_rsvps(event, 1)
    return EventRSVP.objects.get(event=event, user=user)


@pytest.fixture
def event(db: None) -> Event:
    """An RSVP event a week ahead: the default window is start − 1 h .. end."""
    return make_event()


# -- the service ------------------------------------------------------------------------
class TestService:
    def test_a_yes_checks_in_inside_the_window(self, event: Event) -> None:
        rsvp = _yes(event)
        owner = event.organization.owner
        at = event.start - timedelta(minutes=30)
        checked = admin_rsvp_service.check_in_rsvp(owner, event, rsvp.pk, now=at)
        assert checked.checked_in_at == at
        rsvp.refresh_from_db()
        assert rsvp.checked_in_at == at
        assert rsvp.status == EventRSVP.Status.YES

    def test_twice_is_409_already_checked_in_and_keeps_the_first_time(self, event: Event) -> None:
        rsvp = _yes(event)
        owner = event.organization.owner
        first = event.start
        admin_rsvp_service.check_in_rsvp(owner, event, rsvp.pk, now=first)
        with pytest.raises(Conflict) as refused:
            admin_rsvp_service.check_in_rsvp(owner, event, rsvp.pk, now=first + timedelta(1))
        assert refused.value.code == "already_checked_in"
        rsvp.refresh_from_db()
        assert rsvp.checked_in_at == first

    @pytest.mark.parametrize("answer", [EventRSVP.Status.NO, EventRSVP.Status.MAYBE])
    def test_only_a_yes_is_checked_in(self, event: Event, answer: str) -> None:
        rsvp = EventRSVP.objects.create(event=event, user=make_user(), status=answer)
        before = snapshot()
        with pytest.raises(Conflict) as refused:
            admin_rsvp_service.check_in_rsvp(
                event.organization.owner, event, rsvp.pk, now=event.start
            )
        assert refused.value.code == "not_attending"
        assert snapshot() == before

    @pytest.mark.parametrize(
        "offset",
        [timedelta(hours=-2), timedelta(days=1, minutes=1)],
        ids=["before-window", "after-window"],
    )
    def test_outside_the_window_is_refused_as_for_tickets(
        self, event: Event, offset: timedelta
    ) -> None:
        rsvp = _yes(event)
        with pytest.raises(OutsideCheckInWindow) as refused:
            admin_rsvp_service.check_in_rsvp(
                event.organization.owner, event, rsvp.pk, now=event.start + offset
            )
        assert refused.value.status_code == 400
        assert refused.value.code == "outside_check_in_window"
        assert event.check_in_starts_at is not None
        assert refused.value.extra["check_in_starts_at"] == event.check_in_starts_at.isoformat()
        rsvp.refresh_from_db()
        assert rsvp.checked_in_at is None

    def test_an_explicit_window_is_respected(self, event: Event) -> None:
        Event.objects.filter(pk=event.pk).update(
            check_in_starts_at=event.start - timedelta(hours=3), check_in_ends_at=event.start
        )
        event.refresh_from_db()
        rsvp = _yes(event)
        owner = event.organization.owner
        with pytest.raises(OutsideCheckInWindow):
            admin_rsvp_service.check_in_rsvp(owner, event, rsvp.pk, now=event.start + timedelta(1))
        at = event.start - timedelta(hours=2)
        assert admin_rsvp_service.check_in_rsvp(owner, event, rsvp.pk, now=at).checked_in_at == at

    def test_another_events_rsvp_is_not_found(self, event: Event) -> None:
        other = _yes(make_event())
        with pytest.raises(NotFound):
            admin_rsvp_service.check_in_rsvp(
                event.organization.owner, event, other.pk, now=event.start
            )
        other.refresh_from_db()
        assert other.checked_in_at is None

    def test_changing_the_answer_keeps_the_check_in_record(self, event: Event) -> None:
        rsvp = _yes(event)
        owner = event.organization.owner
        admin_rsvp_service.check_in_rsvp(owner, event, rsvp.pk, now=event.start)
        admin_rsvp_service.update_rsvp(event, rsvp, EventRSVP.Status.MAYBE)
        rsvp.refresh_from_db()
        assert (rsvp.status, rsvp.checked_in_at) == (EventRSVP.Status.MAYBE, event.start)

    def test_the_attendees_data_export_has_the_check_in_time(self, event: Event) -> None:
        rsvp = _yes(event)
        admin_rsvp_service.check_in_rsvp(event.organization.owner, event, rsvp.pk, now=event.start)
        [row] = personal_data(rsvp.user)["rsvps"]
        assert row["checked_in_at"] == event.start.isoformat()


# -- the route --------------------------------------------------------------------------
class TestRoute:
    def test_owner_checks_in_and_the_body_says_when(self, api: Any, event: Event) -> None:
        rsvp = _yes(event)
        with time_machine.travel(event.start - timedelta(minutes=30)):
            response = api(event.organization.owner).post(_url(event, rsvp))
        assert response.status_code == 200, response.json()
        assert response.json()["id"] == str(rsvp.pk)
        assert response.json()["status"] == "yes"
        assert response.json()["checked_in_at"]
        rsvp.refresh_from_db()
        assert rsvp.checked_in_at is not None

    def test_second_check_in_is_409_already_checked_in(self, api: Any, event: Event) -> None:
        rsvp = _yes(event)
        owner = event.organization.owner
        with time_machine.travel(event.start):
            assert api(owner).post(_url(event, rsvp)).status_code == 200
            again = api(owner).post(_url(event, rsvp))
        assert again.status_code == 409
        assert again.json()["code"] == "already_checked_in"

    def test_a_no_is_409_not_attending(self, api: Any, event: Event) -> None:
        rsvp = EventRSVP.objects.create(event=event, user=make_user(), status="no")
        with time_machine.travel(event.start):
            response = api(event.organization.owner).post(_url(event, rsvp))
        assert response.status_code == 409
        assert response.json()["code"] == "not_attending"

    def test_outside_the_window_is_400_as_for_tickets(self, api: Any, event: Event) -> None:
        rsvp = _yes(event)
        response = api(event.organization.owner).post(_url(event, rsvp))  # a week early
        assert response.status_code == 400
        assert response.json()["code"] == "outside_check_in_window"
        rsvp.refresh_from_db()
        assert rsvp.checked_in_at is None

    def test_anonymous_is_401(self, api: Any, event: Event) -> None:
        rsvp = _yes(event)
        with time_machine.travel(event.start):
            assert api(None).post(_url(event, rsvp)).status_code == 401
        rsvp.refresh_from_db()
        assert rsvp.checked_in_at is None

    def test_staff_without_check_in_attendees_is_403(self, api: Any, event: Event) -> None:
        rsvp = _yes(event)
        staff = make_staff(event.organization, check_in_attendees=False, manage_event=True)
        with time_machine.travel(event.start):
            response = api(staff).post(_url(event, rsvp))
        assert response.status_code == 403
        rsvp.refresh_from_db()
        assert rsvp.checked_in_at is None

    def test_staff_with_only_check_in_attendees_is_200(self, api: Any, event: Event) -> None:
        rsvp = _yes(event)
        door = make_staff(event.organization, check_in_attendees=True, manage_event=False)
        with time_machine.travel(event.start):
            response = api(door).post(_url(event, rsvp))
        assert response.status_code == 200
        rsvp.refresh_from_db()
        assert rsvp.checked_in_at is not None

    def test_a_plain_user_is_403_and_an_invisible_event_404_writing_nothing(
        self, api: Any, event: Event
    ) -> None:
        rsvp = _yes(event)
        draft = make_event(status="draft")  # another organisation's: invisible
        hidden = _yes(draft)
        before = snapshot()
        with time_machine.travel(event.start):
            assert api(make_user()).post(_url(event, rsvp)).status_code == 403
            assert api(event.organization.owner).post(_url(draft, hidden)).status_code == 404
        assert snapshot() == before

    def test_another_events_rsvp_is_404(self, api: Any, event: Event) -> None:
        other = _yes(make_event(event.organization))
        with time_machine.travel(event.start):
            response = api(event.organization.owner).post(_url(event, other))
        assert response.status_code == 404

    def test_the_rsvp_list_shows_the_check_in_time(self, api: Any, event: Event) -> None:
        rsvp = _yes(event)
        _yes(event)
        at = timezone.now().replace(microsecond=0)
        EventRSVP.objects.filter(pk=rsvp.pk).update(checked_in_at=at)
        rows = api(event.organization.owner).get(f"/event-admin/{event.pk}/rsvps").json()
        times = {row["id"]: row["checked_in_at"] for row in rows["results"]}
        assert times.pop(str(rsvp.pk)) is not None
        assert list(times.values()) == [None]

    def test_the_openapi_document_has_the_route(self, client: Any) -> None:
        document = client.get("/api/openapi.json").json()
        operation = document["paths"]["/api/event-admin/{event_id}/rsvps/{rsvp_id}/check-in"]
        post = operation["post"]
        assert post["operationId"] == "event_admin_rsvp_check_in_rsvp"
        assert {"200", "401", "403", "404", "409"} <= set(post["responses"])
        body = post["responses"]["200"]["content"]["application/json"]["schema"]
        assert "AdminRSVPSchema" in body["$ref"]
