"""`POST /events/{event_id}/waitlist/decline` (docs/spec/api.md "Waitlist, second round"): the
caller's live offer → EXPIRED with `declined_at`; 200 with the my-status body, whose
`offer` is then null; 404 `no_live_offer` without one; 401 without a token; the event's
404 for an event the caller may not see."""

from datetime import timedelta

import pytest
import time_machine

from accounts.tests.factories import make_user
from events.models import Event, EventWaitList
from events.waitlist.tests.rotation_support import scheduled
from events.waitlist.tests.waitlist_builders import (
    T0,
    WINDOW,
    Status,
    active_event,
    give_offer,
    offer_of,
    offered_ids,
    queue_in_order,
)

__all__ = ["scheduled"]  # the fixture, imported for pytest

pytestmark = pytest.mark.django_db


def decline(api, user, event):
    return api(user).post(f"/events/{event.pk}/waitlist/decline")


def test_declining_answers_my_status_without_the_offer_and_keeps_the_place(
    api, scheduled, django_capture_on_commit_callbacks
):
    event = active_event(1)
    [holder, nxt] = queue_in_order(event, 2)
    give_offer(event, holder, expires_at=T0 + WINDOW)

    with (
        time_machine.travel(T0 + timedelta(minutes=3), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = decline(api, holder, event)

    assert response.status_code == 200
    body = response.json()
    assert body["offer"] is None
    assert body["waitlist"] is not None and body["waitlist"]["joined_at"]
    assert set(body) >= {"eligibility", "rsvp", "tickets", "waitlist", "offer"}
    declined = offer_of(event, holder)
    assert declined.status == Status.EXPIRED
    assert declined.declined_at == T0 + timedelta(minutes=3)
    assert EventWaitList.objects.filter(event=event, user=holder).exists()
    assert offered_ids(event) == {nxt.pk}


def test_my_status_afterwards_shows_no_offer_and_the_place_behind(
    api, scheduled, django_capture_on_commit_callbacks
):
    event = active_event(1)
    [holder, nxt, third] = queue_in_order(event, 3)
    give_offer(event, holder, expires_at=T0 + WINDOW)
    with (
        time_machine.travel(T0 + timedelta(minutes=3), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        decline(api, holder, event)

    with time_machine.travel(T0 + timedelta(minutes=4), tick=False):
        status = api(holder).get(f"/events/{event.pk}/my-status").json()

    assert status["offer"] is None
    assert status["waitlist"]["position"] == 2  # behind `third`, who never passed
    assert offered_ids(event) == {nxt.pk}
    assert third.pk not in offered_ids(event)


def test_without_a_live_offer_it_is_404_no_live_offer_and_nothing_changes(api):
    event = active_event(1)
    [member] = queue_in_order(event, 1)

    response = decline(api, member, event)

    assert response.status_code == 404
    assert response.json()["code"] == "no_live_offer"
    assert response.json()["detail"]
    assert EventWaitList.objects.get(event=event, user=member).last_offer_expired_at is None


def test_declining_twice_is_404_the_second_time(api, scheduled, django_capture_on_commit_callbacks):
    event = active_event(1)
    [holder, _] = queue_in_order(event, 2)
    give_offer(event, holder, expires_at=T0 + WINDOW)

    with (
        time_machine.travel(T0 + timedelta(minutes=1), tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        first = decline(api, holder, event)
        second = decline(api, holder, event)

    assert (first.status_code, second.status_code) == (200, 404)
    assert second.json()["code"] == "no_live_offer"


def test_a_stranger_to_the_queue_gets_no_live_offer(api):
    event = active_event(1)

    response = decline(api, make_user(), event)

    assert (response.status_code, response.json()["code"]) == (404, "no_live_offer")


def test_without_a_token_it_is_401(api):
    event = active_event(1)

    assert decline(api, None, event).status_code == 401


def test_an_event_the_caller_may_not_see_is_the_events_404(api):
    event = active_event(1, visibility=Event.Visibility.PRIVATE)
    [holder] = queue_in_order(event, 1)
    give_offer(event, holder, expires_at=T0 + WINDOW)

    response = decline(api, holder, event)

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert offer_of(event, holder).status == Status.PENDING


def test_the_route_is_documented_like_its_neighbours(client):
    schema = client.get("/api/openapi.json").json()
    op = schema["paths"]["/api/events/{event_id}/waitlist/decline"]["post"]
    join = schema["paths"]["/api/events/{event_id}/waitlist/join"]["post"]

    assert op["operationId"] == "attendance_decline_waitlist_offer"
    assert op["tags"] == join["tags"] == ["attendance"]
    assert op["security"] == [{"JWTAuth": []}]
    assert {"200", "401", "404", "429", "503"} <= set(op["responses"])
    assert op["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/MyStatusSchema"
    }
