"""`POST /events/{id}/rsvp/{answer}`: seats, the locked re-check, and what a change triggers."""

import pytest
from django.core.cache import cache

from accounts.tests.factories import make_user
from common.api import WriteThrottle
from events.core.eligibility.pipeline import EligibilityService
from events.core.eligibility.refusals import EligibilityRefused
from events.core.eligibility.types import EventUserEligibility
from events.core.services.event_manager import EventManager
from events.core.tests.attendance_builders import attendee_count, invite, queue, yes_count
from events.core.tests.factories import fill_with_rsvps, make_event
from events.models import Event, EventRSVP, EventWaitList

pytestmark = pytest.mark.django_db


def answer(api, user, event, value: str):
    return api(user).post(f"/events/{event.pk}/rsvp/{value}")


class TestAnswering:
    def test_yes_takes_a_seat(self, api, user):
        event = make_event(max_attendees=5)

        response = answer(api, user, event, "yes")

        assert response.status_code == 200
        assert response.json() == {"status": "yes", "event_id": str(event.pk), "guests": 0}
        assert EventRSVP.objects.get(event=event, user=user).status == "yes"
        assert attendee_count(event) == 1

    @pytest.mark.parametrize("value", ["no", "maybe"])
    def test_no_and_maybe_take_no_seat(self, api, user, value):
        event = make_event(max_attendees=5)

        assert answer(api, user, event, value).json()["status"] == value
        assert attendee_count(event) == 0

    @pytest.mark.parametrize("value", ["YES", "attending", "1"])
    def test_an_unknown_answer_is_a_422_with_the_error_shape(self, api, user, value):
        event = make_event()

        response = answer(api, user, event, value)

        assert response.status_code == 422
        assert response.json()["code"] == "invalid"
        assert "answer" in response.json()["errors"]
        assert not EventRSVP.objects.exists()

    def test_an_anonymous_caller_gets_401(self, api):
        event = make_event()

        assert answer(api, None, event, "yes").status_code == 401

    @pytest.mark.parametrize(
        "fields",
        [
            {"status": Event.Status.DRAFT},
            {"visibility": Event.Visibility.PRIVATE},
            {"visibility": Event.Visibility.STAFF_ONLY},
            {"visibility": Event.Visibility.MEMBERS_ONLY},
        ],
    )
    def test_an_event_the_caller_cannot_see_is_404(self, api, user, fields):
        event = make_event(**fields)

        response = answer(api, user, event, "yes")

        assert response.status_code == 404
        assert response.json()["code"] == "not_found"

    def test_an_unknown_event_is_404(self, api, user):
        response = api(user).post("/events/00000000-0000-0000-0000-000000000000/rsvp/yes")

        assert response.status_code == 404


class TestSeatsMove:
    def test_yes_to_no_frees_the_seat_and_enqueues_processing(
        self, api, user, dispatched, django_capture_on_commit_callbacks
    ):
        event = make_event(max_attendees=1, waitlist_open=True)
        answer(api, user, event, "yes")

        with django_capture_on_commit_callbacks(execute=True):
            response = answer(api, user, event, "no")

        assert response.status_code == 200
        assert attendee_count(event) == 0
        assert dispatched == [event.pk]

    def test_yes_to_maybe_frees_the_seat_too(
        self, api, user, dispatched, django_capture_on_commit_callbacks
    ):
        event = make_event(max_attendees=1)
        answer(api, user, event, "yes")

        with django_capture_on_commit_callbacks(execute=True):
            answer(api, user, event, "maybe")

        assert attendee_count(event) == 0
        assert dispatched == [event.pk]

    @pytest.mark.parametrize("change", [("no", "maybe"), ("maybe", "no"), ("no", "no")])
    def test_a_change_between_non_yes_answers_frees_nothing(
        self, api, user, dispatched, django_capture_on_commit_callbacks, change
    ):
        before, after = change
        event = make_event(max_attendees=1)
        answer(api, user, event, before)

        with django_capture_on_commit_callbacks(execute=True):
            answer(api, user, event, after)

        assert dispatched == []

    def test_a_new_yes_enqueues_nothing(
        self, api, user, dispatched, django_capture_on_commit_callbacks
    ):
        event = make_event(max_attendees=2)

        with django_capture_on_commit_callbacks(execute=True):
            answer(api, user, event, "yes")

        assert dispatched == []

    def test_the_freed_seat_can_be_taken_by_somebody_else(self, api, user):
        event = make_event(max_attendees=1)
        other = make_user()
        answer(api, user, event, "yes")
        assert answer(api, other, event, "yes").status_code == 409

        answer(api, user, event, "no")

        assert answer(api, other, event, "yes").status_code == 200
        assert attendee_count(event) == 1

    def test_no_back_to_yes_on_a_full_event_is_refused(self, api, user):
        event = make_event(max_attendees=1)
        answer(api, user, event, "yes")
        answer(api, user, event, "no")
        fill_with_rsvps(event, 1)

        response = answer(api, user, event, "yes")

        assert response.status_code == 409
        assert EventRSVP.objects.get(event=event, user=user).status == "no"

    def test_attendee_count_always_equals_the_yes_count(self, api):
        event = make_event(max_attendees=3)
        people = [make_user() for _ in range(5)]
        script = [
            (0, "yes"),
            (1, "yes"),
            (2, "maybe"),
            (3, "yes"),
            (4, "yes"),  # refused: full
            (1, "no"),
            (4, "yes"),
            (0, "yes"),  # already yes: no change
            (2, "yes"),  # refused: full
            (3, "maybe"),
            (2, "yes"),
            (0, "no"),
        ]
        for index, value in script:
            answer(api, people[index], event, value)
            assert attendee_count(event) == yes_count(event)

        assert yes_count(event) == 2


class TestRegistrationLeavesTheQueue:
    def test_a_yes_removes_the_users_queue_entry(self, api, user):
        event = make_event(max_attendees=2, waitlist_open=True)
        other = make_user()
        queue(event, user, other)

        assert answer(api, user, event, "yes").status_code == 200

        assert list(EventWaitList.objects.filter(event=event).values_list("user", flat=True)) == [
            other.pk
        ]

    def test_a_refused_yes_keeps_the_queue_entry(self, api, user):
        event = make_event(max_attendees=1, waitlist_open=True)
        fill_with_rsvps(event, 1)
        queue(event, user)

        assert answer(api, user, event, "yes").status_code == 409

        assert EventWaitList.objects.filter(event=event, user=user).exists()

    def test_a_no_keeps_the_queue_entry(self, api, user):
        event = make_event(max_attendees=1, waitlist_open=True)
        fill_with_rsvps(event, 1)
        queue(event, user)

        answer(api, user, event, "no")

        assert EventWaitList.objects.filter(event=event, user=user).exists()


class TestInvitationOverridingCapacity:
    def test_the_gate_lets_an_overriding_invitation_past_a_full_event(self, api, user):
        event = make_event(max_attendees=2)
        fill_with_rsvps(event, 2)
        invite(event, user, overrides_max_attendees=True)

        response = answer(api, user, event, "yes")

        assert response.status_code == 200
        assert attendee_count(event) == 3 == yes_count(event)

    def test_a_plain_invitation_does_not_override_capacity(self, api, user):
        event = make_event(max_attendees=2, event_type=Event.EventType.PRIVATE)
        fill_with_rsvps(event, 2)
        invite(event, user)

        assert answer(api, user, event, "yes").status_code == 409

    def test_the_locked_check_honours_an_overriding_invitation(self, user):
        """The gate is bypassed (staff answering); only the locked check decides."""
        event = make_event(max_attendees=1)
        fill_with_rsvps(event, 1)
        invite(event, user, overrides_max_attendees=True)

        rsvp = EventManager(user, event).rsvp("yes", by_staff=True)

        assert rsvp.status == "yes"
        assert attendee_count(event) == 2

    def test_the_locked_check_refuses_without_an_overriding_invitation(self, user):
        event = make_event(max_attendees=1)
        fill_with_rsvps(event, 1)
        invite(event, user)

        with pytest.raises(EligibilityRefused) as refused:
            EventManager(user, event).rsvp("yes", by_staff=True)

        assert refused.value.status_code == 409
        assert refused.value.code == "event_is_full"
        assert attendee_count(event) == 1


class TestTheLockedCheckDecidesARace:
    def test_a_stale_gate_answer_is_corrected_under_the_lock(self, user):
        stale = make_event(max_attendees=1)
        fill_with_rsvps(Event.objects.get(pk=stale.pk), 1)  # `stale` still says 0 attendees

        with pytest.raises(EligibilityRefused) as refused:
            EventManager(user, stale).rsvp("yes")

        assert refused.value.code == "event_is_full"
        assert not EventRSVP.objects.filter(user=user).exists()

    def test_a_seat_lost_after_the_gate_answers_409_with_the_gate_body(
        self, api, user, monkeypatch
    ):
        """Whether the gate or the locked check finds the event full, the client sees one shape."""
        event = make_event(max_attendees=1, waitlist_open=True)
        fill_with_rsvps(event, 1)
        monkeypatch.setattr(
            EligibilityService,
            "check_eligibility",
            lambda self, seats=1: EventUserEligibility(allowed=True, event_id=self.event.pk),
        )

        response = answer(api, user, event, "yes")

        assert response.status_code == 409
        body = response.json()
        assert (body["code"], body["reason_code"], body["next_step"]) == (
            "event_is_full",
            "event_is_full",
            "join_waitlist",
        )
        assert body["allowed"] is False


class TestThrottling:
    def test_rsvp_writes_are_throttled_per_user(self, api, user, settings):
        # The rate is read once, when the controllers are registered: send one request
        # more than it allows instead of lowering it.
        settings.THROTTLE_ENABLED = True
        allowed = WriteThrottle().num_requests
        assert allowed is not None
        cache.clear()
        event = make_event()
        client = api(user)

        responses = [client.post(f"/events/{event.pk}/rsvp/maybe") for _ in range(allowed + 1)]

        assert all(r.status_code == 200 for r in responses[:allowed])
        assert responses[allowed].status_code == 429
        assert int(responses[allowed]["Retry-After"]) >= 1
        assert api(make_user()).post(f"/events/{event.pk}/rsvp/maybe").status_code == 200
        cache.clear()
