"""Every gate of the eligibility pipeline, seen through the HTTP API.

A refusal is 400 with the `EventUserEligibility` fields beside `detail`/`code`, except the
capacity reasons, which are 409 (docs/spec/api.md). RSVP events are refused on `POST .../rsvp/yes`;
ticketed events show their answer on `GET .../my-status` and on the waitlist join.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.attendance_builders import blacklist, invite, queue
from events.core.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_member,
    make_org,
    make_staff,
    make_tier,
)
from events.models import Event, OrganizationMember

pytestmark = pytest.mark.django_db


def rsvp_yes(api, user, event):
    return api(user).post(f"/events/{event.pk}/rsvp/yes")


def my_eligibility(api, user, event) -> dict:
    response = api(user).get(f"/events/{event.pk}/my-status")
    assert response.status_code == 200, response.content
    return response.json()["eligibility"]


def assert_refused(response, status: int, reason_code: str, next_step: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["allowed"] is False
    assert body["code"] == body["reason_code"] == reason_code
    assert body["detail"] == body["reason"]
    assert body["next_step"] == next_step
    return body


class TestBlacklistGate:
    def test_a_user_blacklisted_by_account_is_refused(self, api, user):
        event = make_event()
        blacklist(event.organization, user=user)

        assert_refused(rsvp_yes(api, user, event), 400, "blacklisted")
        assert my_eligibility(api, user, event)["reason_code"] == "blacklisted"

    def test_a_user_blacklisted_by_email_is_refused_whatever_the_case(self, api):
        user = make_user("Mixed.Case@Example.COM")
        event = make_event()
        blacklist(event.organization, email="mixed.case@EXAMPLE.com")

        assert_refused(rsvp_yes(api, user, event), 400, "blacklisted")

    def test_a_blacklist_entry_of_another_organisation_does_not_refuse(self, api, user):
        event = make_event()
        blacklist(make_org(), user=user)

        assert rsvp_yes(api, user, event).status_code == 200

    def test_a_blacklisted_user_cannot_answer_no_either(self, api, user):
        event = make_event()
        blacklist(event.organization, user=user)

        response = api(user).post(f"/events/{event.pk}/rsvp/no")

        assert_refused(response, 400, "blacklisted")


class TestEventStatusGate:
    def test_a_finished_event_refuses(self, api, user):
        start = timezone.now() - timedelta(days=2)
        event = make_event(start=start, end=start + timedelta(hours=3))

        assert_refused(rsvp_yes(api, user, event), 400, "event_has_finished")

    @pytest.mark.parametrize("status", [Event.Status.CLOSED, Event.Status.CANCELLED])
    def test_an_event_that_is_not_open_refuses_with_wait_for_it_to_open(self, api, user, status):
        event = make_event(status=status)

        assert_refused(
            rsvp_yes(api, user, event), 400, "event_is_not_open", "wait_for_event_to_open"
        )

    def test_an_event_in_progress_still_takes_answers(self, api, user):
        event = make_event(start=timezone.now() - timedelta(hours=1))

        assert rsvp_yes(api, user, event).status_code == 200


class TestRSVPDeadlineGate:
    def test_an_answer_after_the_deadline_is_refused(self, api, user):
        event = make_event(rsvp_before=timezone.now() - timedelta(minutes=1))

        assert_refused(rsvp_yes(api, user, event), 400, "rsvp_deadline_passed")

    def test_an_answer_before_the_deadline_passes(self, api, user):
        event = make_event(rsvp_before=timezone.now() + timedelta(hours=1))

        assert rsvp_yes(api, user, event).status_code == 200


class TestInvitationGate:
    def test_a_private_event_refuses_without_an_invitation(self, api, user):
        event = make_event(event_type=Event.EventType.PRIVATE)

        assert_refused(rsvp_yes(api, user, event), 400, "requires_invitation")

    def test_a_private_event_admits_the_invited(self, api, user):
        event = make_event(event_type=Event.EventType.PRIVATE)
        invite(event, user)

        assert rsvp_yes(api, user, event).status_code == 200


class TestMembershipGate:
    def test_a_non_member_is_told_to_become_one(self, api, user):
        event = make_event(event_type=Event.EventType.MEMBERS_ONLY)

        assert_refused(rsvp_yes(api, user, event), 400, "members_only", "become_member")

    @pytest.mark.parametrize(
        "status",
        [
            OrganizationMember.Status.PAUSED,
            OrganizationMember.Status.CANCELLED,
            OrganizationMember.Status.BANNED,
        ],
    )
    def test_an_inactive_membership_refuses(self, api, user, status):
        event = make_event(event_type=Event.EventType.MEMBERS_ONLY)
        make_member(event.organization, user, status=status)

        assert_refused(rsvp_yes(api, user, event), 400, "membership_inactive")

    def test_an_active_member_passes(self, api, user):
        event = make_event(event_type=Event.EventType.MEMBERS_ONLY)
        make_member(event.organization, user)

        assert rsvp_yes(api, user, event).status_code == 200


class TestAvailabilityGate:
    def test_a_full_event_with_an_open_waitlist_says_join_it(self, api, user):
        event = make_event(max_attendees=2, waitlist_open=True)
        fill_with_rsvps(event, 2)

        body = assert_refused(rsvp_yes(api, user, event), 409, "event_is_full", "join_waitlist")
        assert body["waitlist_position"] is None
        assert body["pending_offers_count"] == 0

    def test_a_queued_user_is_told_to_wait_for_a_spot(self, api, user):
        event = make_event(max_attendees=2, waitlist_open=True)
        fill_with_rsvps(event, 2)
        queue(event, make_user(), user)

        body = assert_refused(
            rsvp_yes(api, user, event), 409, "event_is_full", "wait_for_open_spot"
        )
        assert body["waitlist_position"] == 2

    def test_a_full_event_with_a_closed_waitlist_has_no_next_step(self, api, user):
        event = make_event(max_attendees=2, waitlist_open=False)
        fill_with_rsvps(event, 2)

        assert_refused(rsvp_yes(api, user, event), 409, "event_is_full", None)

    def test_the_venue_capacity_counts_when_it_is_the_smaller_limit(self, api, user):
        from events.models import Venue

        org = make_org()
        venue = Venue.objects.create(organization=org, name="Cellar", capacity=1)
        event = make_event(org, max_attendees=10, venue=venue)
        fill_with_rsvps(event, 1)

        assert_refused(rsvp_yes(api, user, event), 409, "event_is_full")

    @pytest.mark.parametrize("answer", ["no", "maybe"])
    def test_no_and_maybe_pass_on_a_full_event(self, api, user, answer):
        event = make_event(max_attendees=1)
        fill_with_rsvps(event, 1)

        response = api(user).post(f"/events/{event.pk}/rsvp/{answer}")

        assert response.status_code == 200
        assert response.json()["status"] == answer
        event.refresh_from_db()
        assert event.attendee_count == 1

    def test_an_attendee_answering_yes_again_on_a_full_event_keeps_the_seat(self, api):
        event = make_event(max_attendees=1)
        [attendee] = fill_with_rsvps(event, 1)

        assert rsvp_yes(api, attendee, event).status_code == 200
        event.refresh_from_db()
        assert event.attendee_count == 1


class TestTicketSalesGate:
    def test_a_ticketed_event_without_a_tier_on_sale_says_so(self, api, user):
        event = make_event(requires_ticket=True)
        make_tier(event, sales_start_at=timezone.now() + timedelta(days=1))
        make_tier(event, sales_end_at=timezone.now() - timedelta(minutes=1))

        eligibility = my_eligibility(api, user, event)

        assert eligibility["allowed"] is False
        assert eligibility["reason_code"] == "no_tickets_on_sale"
        assert eligibility["next_step"] is None

    def test_every_tier_on_sale_exhausted_is_sold_out_with_join_waitlist(self, api, user):
        event = make_event(requires_ticket=True, waitlist_open=True)
        tier = make_tier(event, total_quantity=2)
        fill_with_tickets(event, tier, 2)

        eligibility = my_eligibility(api, user, event)

        assert (eligibility["reason_code"], eligibility["next_step"]) == (
            "sold_out",
            "join_waitlist",
        )

    def test_sold_out_tells_a_queued_user_to_wait(self, api, user):
        event = make_event(requires_ticket=True, waitlist_open=True)
        tier = make_tier(event, total_quantity=1)
        fill_with_tickets(event, tier, 1)
        queue(event, user)

        eligibility = my_eligibility(api, user, event)

        assert (eligibility["reason_code"], eligibility["next_step"]) == (
            "sold_out",
            "wait_for_open_spot",
        )
        assert eligibility["waitlist_position"] == 1

    def test_one_tier_left_on_sale_is_enough(self, api, user):
        event = make_event(requires_ticket=True)
        tier = make_tier(event, total_quantity=1)
        fill_with_tickets(event, tier, 1)
        make_tier(event, total_quantity=None)

        assert my_eligibility(api, user, event)["allowed"] is True

    def test_an_rsvp_on_a_ticketed_event_is_refused(self, api, user):
        event = make_event(requires_ticket=True)
        make_tier(event)

        assert_refused(rsvp_yes(api, user, event), 400, "requires_ticket")


class TestPrivilegedAccess:
    @pytest.mark.parametrize("role", ["owner", "staff"])
    def test_owner_and_staff_skip_gates_two_to_six(self, api, role):
        org = make_org()
        actor = org.owner if role == "owner" else make_staff(org)
        blacklist(org, user=actor)
        event = make_event(
            org,
            status=Event.Status.CLOSED,
            event_type=Event.EventType.MEMBERS_ONLY,
            rsvp_before=timezone.now() - timedelta(hours=1),
        )

        response = rsvp_yes(api, actor, event)

        assert response.status_code == 200, response.content

    def test_staff_skip_the_invitation_of_a_private_event(self, api):
        org = make_org()
        staff = make_staff(org)
        event = make_event(org, event_type=Event.EventType.PRIVATE)

        assert rsvp_yes(api, staff, event).status_code == 200

    @pytest.mark.parametrize("role", ["owner", "staff"])
    def test_owner_and_staff_do_not_skip_capacity(self, api, role):
        org = make_org()
        actor = org.owner if role == "owner" else make_staff(org)
        event = make_event(org, max_attendees=1)
        fill_with_rsvps(event, 1)

        assert_refused(rsvp_yes(api, actor, event), 409, "event_is_full")

    def test_staff_do_not_skip_ticket_sales(self, api):
        org = make_org()
        staff = make_staff(org)
        event = make_event(org, requires_ticket=True)
        make_tier(event, sales_start_at=timezone.now() + timedelta(days=1))

        assert my_eligibility(api, staff, event)["reason_code"] == "no_tickets_on_sale"

    def test_staff_of_another_organisation_are_not_privileged(self, api):
        staff = make_staff(make_org())
        event = make_event(event_type=Event.EventType.MEMBERS_ONLY)

        assert_refused(rsvp_yes(api, staff, event), 400, "members_only", "become_member")


class TestGateOrder:
    def test_the_first_refusal_wins(self, api, user):
        """Blacklisted beats closed, which beats members-only, which beats full."""
        event = make_event(
            status=Event.Status.CLOSED, event_type=Event.EventType.MEMBERS_ONLY, max_attendees=1
        )
        fill_with_rsvps(event, 1)
        blacklist(event.organization, user=user)

        assert_refused(rsvp_yes(api, user, event), 400, "blacklisted")
