"""`POST /events/{id}/waitlist/join` and `DELETE /events/{id}/waitlist/leave` (legacy queue).

Join is checked in docs/spec/api.md's order: waitlist not open → 400 `waitlist_closed`; already
attending → 409 `already_attending`; already queued → 200; could register now → 409
`capacity_available`; another gate refuses → 400 eligibility body; else 201.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.attendance_builders import blacklist, queue
from events.core.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_member,
    make_tier,
)
from events.models import Event, EventWaitList, Ticket

pytestmark = pytest.mark.django_db


def full_event(**fields) -> Event:
    fields.setdefault("waitlist_open", True)
    event = make_event(max_attendees=2, **fields)
    fill_with_rsvps(event, 2)
    return event


def join(api, user, event):
    return api(user).post(f"/events/{event.pk}/waitlist/join")


def leave(api, user, event):
    return api(user).delete(f"/events/{event.pk}/waitlist/leave")


def queued_users(event) -> list:
    return list(EventWaitList.objects.filter(event=event).values_list("user", flat=True))


class TestJoin:
    def test_joining_a_full_event_queues_the_user(self, api, user):
        event = full_event()
        queue(event, make_user())

        response = join(api, user, event)

        assert response.status_code == 201
        body = response.json()
        assert body["event_id"] == str(event.pk)
        assert body["position"] == 2
        assert body["joined_at"]
        assert EventWaitList.objects.filter(event=event, user=user).exists()

    def test_a_new_entry_enqueues_processing_as_a_self_heal(
        self, api, user, dispatched, django_capture_on_commit_callbacks
    ):
        event = full_event()

        with django_capture_on_commit_callbacks(execute=True):
            join(api, user, event)

        assert dispatched == [event.pk]

    def test_a_sold_out_ticketed_event_can_be_joined(self, api, user):
        event = make_event(requires_ticket=True, waitlist_open=True)
        tier = make_tier(event, total_quantity=1)
        fill_with_tickets(event, tier, 1)

        assert join(api, user, event).status_code == 201

    def test_a_full_ticketed_event_can_be_joined(self, api, user):
        event = make_event(requires_ticket=True, waitlist_open=True, max_attendees=1)
        tier = make_tier(event)
        fill_with_tickets(event, tier, 1)

        assert join(api, user, event).status_code == 201

    def test_the_my_status_route_shows_the_queue_entry(self, api, user):
        event = full_event()
        queue(event, make_user())
        join(api, user, event)

        status = api(user).get(f"/events/{event.pk}/my-status").json()

        assert status["waitlist"]["position"] == 2
        assert status["waitlist"]["joined_at"]
        assert status["eligibility"]["next_step"] == "wait_for_open_spot"


class TestJoinRefusalsInOrder:
    def test_a_closed_waitlist_is_400_waitlist_closed(self, api, user):
        event = full_event(waitlist_open=False)

        response = join(api, user, event)

        assert response.status_code == 400
        assert response.json()["code"] == "waitlist_closed"
        assert response.json()["detail"]
        assert queued_users(event) == []

    def test_closed_is_answered_before_already_attending(self, api):
        event = make_event(max_attendees=2, waitlist_open=False)
        [attendee, _] = fill_with_rsvps(event, 2)

        assert join(api, attendee, event).json()["code"] == "waitlist_closed"

    def test_a_yes_rsvp_is_409_already_attending(self, api):
        event = make_event(max_attendees=2, waitlist_open=True)
        [attendee, _] = fill_with_rsvps(event, 2)

        response = join(api, attendee, event)

        assert response.status_code == 409
        assert response.json()["code"] == "already_attending"

    @pytest.mark.parametrize("status", [Ticket.Status.PENDING, Ticket.Status.ACTIVE])
    def test_a_live_ticket_is_409_already_attending(self, api, user, status):
        event = make_event(requires_ticket=True, waitlist_open=True)
        tier = make_tier(event, total_quantity=1)
        [holder] = fill_with_tickets(event, tier, 1)
        Ticket.objects.filter(user=holder).update(status=status)

        assert join(api, holder, event).json()["code"] == "already_attending"

    def test_a_cancelled_ticket_does_not_count_as_attending(self, api, user):
        event = make_event(requires_ticket=True, waitlist_open=True)
        tier = make_tier(event, total_quantity=1)
        fill_with_tickets(event, tier, 1)
        Ticket.objects.create(event=event, tier=tier, user=user, status=Ticket.Status.CANCELLED)

        assert join(api, user, event).status_code == 201

    def test_joining_twice_is_200_with_the_same_entry(self, api, user):
        event = full_event()
        first = join(api, user, event).json()

        response = join(api, user, event)

        assert response.status_code == 200
        assert response.json() == first
        assert queued_users(event) == [user.pk]

    def test_already_queued_is_answered_before_the_gates(self, api, user):
        """Somebody queued who is blacklisted later still gets their entry back (200)."""
        event = full_event()
        join(api, user, event)
        blacklist(event.organization, user=user)

        assert join(api, user, event).status_code == 200

    def test_already_queued_is_answered_before_capacity_available(self, api, user):
        event = make_event(max_attendees=5, waitlist_open=True)
        queue(event, user)

        assert join(api, user, event).status_code == 200

    @pytest.mark.parametrize("max_attendees", [5, 0], ids=["room", "unlimited"])
    def test_a_user_who_could_register_now_is_409_capacity_available(
        self, api, user, max_attendees
    ):
        event = make_event(max_attendees=max_attendees, waitlist_open=True)

        response = join(api, user, event)

        assert response.status_code == 409
        assert response.json()["code"] == "capacity_available"
        assert queued_users(event) == []

    def test_a_ticketed_event_with_tickets_on_sale_is_capacity_available(self, api, user):
        event = make_event(requires_ticket=True, waitlist_open=True, max_attendees=10)
        make_tier(event, total_quantity=5)

        assert join(api, user, event).json()["code"] == "capacity_available"

    def test_another_gate_refusing_is_400_with_the_eligibility_body(self, api, user):
        event = full_event(event_type=Event.EventType.MEMBERS_ONLY)

        response = join(api, user, event)

        assert response.status_code == 400
        body = response.json()
        assert (body["code"], body["reason_code"], body["next_step"]) == (
            "members_only",
            "members_only",
            "become_member",
        )
        assert body["allowed"] is False
        assert queued_users(event) == []

    def test_an_event_that_is_not_open_refuses_the_join(self, api, user):
        event = full_event(status=Event.Status.CLOSED)

        assert join(api, user, event).json()["code"] == "event_is_not_open"

    def test_no_tickets_on_sale_refuses_the_join(self, api, user):
        event = make_event(requires_ticket=True, waitlist_open=True)
        make_tier(event, sales_start_at=timezone.now() + timedelta(days=1))

        response = join(api, user, event)

        assert response.status_code == 400
        assert response.json()["code"] == "no_tickets_on_sale"

    def test_a_blacklisted_user_is_refused(self, api, user):
        event = full_event()
        blacklist(event.organization, user=user)

        assert join(api, user, event).json()["code"] == "blacklisted"

    def test_an_active_member_can_join_a_full_members_only_event(self, api, user):
        event = full_event(event_type=Event.EventType.MEMBERS_ONLY)
        make_member(event.organization, user)

        assert join(api, user, event).status_code == 201


class TestJoinAccess:
    def test_anonymous_is_401(self, api):
        assert join(api, None, full_event()).status_code == 401

    def test_an_invisible_event_is_404(self, api, user):
        event = full_event(visibility=Event.Visibility.PRIVATE)

        assert join(api, user, event).status_code == 404


class TestLeave:
    def test_leaving_removes_the_entry_and_keeps_the_order_of_the_rest(self, api, user):
        event = full_event()
        first, last = make_user(), make_user()
        queue(event, first, user, last)

        response = leave(api, user, event)

        assert response.status_code == 204
        assert response.content == b""
        assert queued_users(event) == [first.pk, last.pk]
        status = api(last).get(f"/events/{event.pk}/my-status").json()
        assert status["waitlist"]["position"] == 2

    def test_leaving_when_not_queued_is_still_204(self, api, user):
        assert leave(api, user, full_event()).status_code == 204

    def test_leaving_a_closed_waitlist_is_204_and_removes_the_entry(self, api, user):
        event = full_event(waitlist_open=False)
        queue(event, user)

        assert leave(api, user, event).status_code == 204
        assert queued_users(event) == []

    def test_leaving_without_an_offer_enqueues_nothing(
        self, api, user, dispatched, django_capture_on_commit_callbacks
    ):
        event = full_event()
        queue(event, user)

        with django_capture_on_commit_callbacks(execute=True):
            leave(api, user, event)

        assert dispatched == []

    def test_leaving_with_a_held_offer_enqueues_processing(
        self, api, user, dispatched, django_capture_on_commit_callbacks, monkeypatch
    ):
        """The seam of the advanced waitlist: once an offer is released, its seat moves on."""
        event = full_event()
        queue(event, user)
        monkeypatch.setattr(
            "events.waitlist.services.membership._expire_held_offer",
            lambda event, user: True,
        )

        with django_capture_on_commit_callbacks(execute=True):
            leave(api, user, event)

        assert dispatched == [event.pk]

    def test_leaving_touches_only_the_callers_entry(self, api, user):
        event = full_event()
        other = make_user()
        queue(event, other)

        leave(api, user, event)

        assert queued_users(event) == [other.pk]

    def test_anonymous_is_401(self, api):
        assert leave(api, None, full_event()).status_code == 401

    def test_rejoining_after_leaving_goes_to_the_back(self, api, user):
        event = full_event()
        queue(event, user, make_user())
        leave(api, user, event)

        assert join(api, user, event).json()["position"] == 2
