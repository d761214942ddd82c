"""/event-admin/{event_id}/rsvps: staff answer for users, never past capacity."""

from typing import Any

import pytest

from accounts.tests.factories import make_user
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import fill_with_rsvps, make_event
from events.models import Event, EventRSVP, EventWaitList


def _url(event: Event, rsvp_id: Any = None) -> str:
    base = f"/event-admin/{event.pk}/rsvps"
    return base if rsvp_id is None else f"{base}/{rsvp_id}"


@pytest.fixture
def event(db: None) -> Event:
    return make_event(max_attendees=2)


def _owner(api: Any, event: Event) -> Any:
    return api(event.organization.owner)


def _yes_count_matches(event: Event) -> bool:
    event.refresh_from_db()
    return event.attendee_count == EventRSVP.objects.filter(event=event, status="yes").count()


@pytest.mark.django_db
class TestCreateAndUpdate:
    def test_post_creates_with_201_then_updates_with_200(self, api, event) -> None:
        target = make_user()
        first = _owner(api, event).post(_url(event), {"user_id": str(target.pk), "status": "maybe"})
        assert first.status_code == 201, first.content
        assert first.json()["status"] == "maybe"
        assert first.json()["user"] == {
            "id": str(target.pk),
            "email": target.email,
            "display_name": target.display_name,
        }
        second = _owner(api, event).post(_url(event), {"user_id": str(target.pk), "status": "yes"})
        assert second.status_code == 200
        assert second.json()["id"] == first.json()["id"]
        assert EventRSVP.objects.get(event=event, user=target).status == "yes"
        assert _yes_count_matches(event)

    def test_staff_answer_for_a_draft_event_skipping_the_gates(self, api) -> None:
        event = make_event(status="draft", max_attendees=3)
        target = make_user()
        response = _owner(api, event).post(
            _url(event), {"user_id": str(target.pk), "status": "yes"}
        )
        assert response.status_code == 201
        assert _yes_count_matches(event)

    def test_yes_on_a_full_event_is_409_event_is_full_and_writes_nothing(self, api, event) -> None:
        fill_with_rsvps(event, 2)
        target = make_user()
        before = snapshot()
        response = _owner(api, event).post(
            _url(event), {"user_id": str(target.pk), "status": "yes"}
        )
        assert response.status_code == 409
        assert response.json()["code"] == "event_is_full"
        assert response.json()["allowed"] is False
        assert snapshot() == before

    def test_patch_to_yes_on_a_full_event_is_409(self, api, event) -> None:
        fill_with_rsvps(event, 2)
        rsvp = EventRSVP.objects.create(event=event, user=make_user(), status="maybe")
        response = _owner(api, event).patch(_url(event, rsvp.pk), {"status": "yes"})
        assert response.status_code == 409
        rsvp.refresh_from_db()
        assert rsvp.status == "maybe" and _yes_count_matches(event)

    def test_no_and_maybe_pass_on_a_full_event(self, api, event) -> None:
        fill_with_rsvps(event, 2)
        for answer in ("no", "maybe"):
            target = make_user()
            body = {"user_id": str(target.pk), "status": answer}
            assert _owner(api, event).post(_url(event), body).status_code == 201
        assert _yes_count_matches(event)

    def test_yes_to_no_frees_the_seat_and_enqueues_processing(
        self, api, event, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        attendee = fill_with_rsvps(event, 2)[0]
        rsvp = EventRSVP.objects.get(event=event, user=attendee)
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).patch(_url(event, rsvp.pk), {"status": "no"})
        assert response.status_code == 200 and response.json()["status"] == "no"
        event.refresh_from_db()
        assert event.attendee_count == 1 and _yes_count_matches(event)
        assert dispatched == [event.pk]
        newcomer = make_user()
        body = {"user_id": str(newcomer.pk), "status": "yes"}
        assert _owner(api, event).post(_url(event), body).status_code == 201
        assert _yes_count_matches(event)

    def test_post_changing_yes_to_maybe_also_enqueues(
        self, api, event, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        attendee = fill_with_rsvps(event, 1)[0]
        with django_capture_on_commit_callbacks(execute=True):
            body = {"user_id": str(attendee.pk), "status": "maybe"}
            assert _owner(api, event).post(_url(event), body).status_code == 200
        assert dispatched == [event.pk]
        assert _yes_count_matches(event)

    def test_staff_yes_takes_the_user_off_the_waitlist(self, api, event) -> None:
        target = make_user()
        EventWaitList.objects.create(event=event, user=target)
        body = {"user_id": str(target.pk), "status": "yes"}
        assert _owner(api, event).post(_url(event), body).status_code == 201
        assert not EventWaitList.objects.filter(event=event, user=target).exists()

    def test_a_ticketed_event_takes_no_rsvps(self, api) -> None:
        event = make_event(requires_ticket=True)
        before = snapshot()
        body = {"user_id": str(make_user().pk), "status": "yes"}
        response = _owner(api, event).post(_url(event), body)
        assert response.status_code == 400
        assert response.json()["code"] == "requires_ticket"
        assert snapshot() == before

    def test_an_unknown_user_is_400(self, api, event) -> None:
        before = snapshot()
        body = {"user_id": "00000000-0000-0000-0000-000000000009", "status": "yes"}
        response = _owner(api, event).post(_url(event), body)
        assert response.status_code == 400
        assert "user_id" in response.json()["errors"]
        assert snapshot() == before

    @pytest.mark.parametrize(
        "body",
        [
            {"status": "yes"},
            {"user_id": "nope", "status": "yes"},
            {"user_id": "00000000-0000-0000-0000-000000000009", "status": "perhaps"},
            {"user_id": "00000000-0000-0000-0000-000000000009", "status": "yes", "x": 1},
        ],
        ids=["missing-user", "bad-uuid", "unknown-answer", "extra-field"],
    )
    def test_malformed_bodies_are_422(self, api, event, body) -> None:
        before = snapshot()
        assert _owner(api, event).post(_url(event), body).status_code == 422
        assert snapshot() == before


@pytest.mark.django_db
class TestListAndDelete:
    def test_list_is_paginated_and_filtered_by_status(self, api, event) -> None:
        fill_with_rsvps(event, 2)
        EventRSVP.objects.create(event=event, user=make_user(), status="no")
        listed = _owner(api, event).get(_url(event)).json()
        assert listed["count"] == 3 and len(listed["results"]) == 3
        only_no = _owner(api, event).get(_url(event), status="no").json()
        assert [r["status"] for r in only_no["results"]] == ["no"]
        page = _owner(api, event).get(_url(event), page_size=2, page=2).json()
        assert len(page["results"]) == 1 and page["previous"]

    def test_an_unknown_status_filter_is_422(self, api, event) -> None:
        assert _owner(api, event).get(_url(event), status="sometimes").status_code == 422

    def test_the_list_shows_only_this_events_rsvps(self, api, event) -> None:
        other = make_event(event.organization)
        fill_with_rsvps(other, 1)
        assert _owner(api, event).get(_url(event)).json()["count"] == 0

    def test_deleting_a_yes_frees_the_seat_and_enqueues(
        self, api, event, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        attendee = fill_with_rsvps(event, 2)[1]
        rsvp = EventRSVP.objects.get(event=event, user=attendee)
        with django_capture_on_commit_callbacks(execute=True):
            assert _owner(api, event).delete(_url(event, rsvp.pk)).status_code == 204
        assert not EventRSVP.objects.filter(pk=rsvp.pk).exists()
        assert _yes_count_matches(event) and event.attendee_count == 1
        assert dispatched == [event.pk]

    def test_deleting_a_no_enqueues_nothing(
        self, api, event, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        rsvp = EventRSVP.objects.create(event=event, user=make_user(), status="no")
        with django_capture_on_commit_callbacks(execute=True):
            assert _owner(api, event).delete(_url(event, rsvp.pk)).status_code == 204
        assert dispatched == []

    @pytest.mark.parametrize("method", ["patch", "delete"])
    def test_an_rsvp_of_another_event_is_404(self, api, event, method) -> None:
        other = make_event(event.organization)
        foreign = EventRSVP.objects.create(event=other, user=make_user(), status="yes")
        before = snapshot()
        client = _owner(api, event)
        response = getattr(client, method)(_url(event, foreign.pk), {"status": "no"})
        assert response.status_code == 404
        assert snapshot() == before
