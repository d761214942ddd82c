"""docs/spec/seed-tables.md "What the user sees", row by row, read from GET /events/{id}/my-status; and
what registering does to a queued member: every registration path takes them off the
queue, and refusals speak the user's time.
"""

from datetime import timedelta

import pytest
import time_machine

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps
from events.models import Event, EventWaitList, Ticket, TicketTier, WaitlistOffer
from events.ticketing.tests.ticket_helpers import cart, offline_tier
from events.waitlist.tests.waitlist_builders import (
    START,
    T0,
    WINDOW,
    Status,
    active_event,
    active_ticketed_event,
    give_offer,
    offers_of,
    queue_in_order,
)
from events.waitlist.tests.waitlist_matrix_support import _admin_rsvp_yes, _at_t0, at

__all__ = ["_at_t0"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


# -- what the user sees ---------------------------------------------------------------------
def eligibility(api, user, event) -> dict:
    response = api(user).get(f"/events/{event.pk}/my-status")
    assert response.status_code == 200
    return response.json()


class TestWhatTheUserSees:
    def test_capacity_available_is_allowed(self, api):
        event = active_event(3, attendees=1)

        answer = eligibility(api, make_user(), event)["eligibility"]

        assert answer["allowed"] is True
        assert (answer["reason_code"], answer["next_step"]) == (None, None)

    def test_full_on_attendees_alone_invites_to_join_the_open_queue(self, api):
        event = active_event(2, attendees=2)

        answer = eligibility(api, make_user(), event)["eligibility"]

        assert answer["allowed"] is False
        assert (answer["reason_code"], answer["next_step"]) == ("event_is_full", "join_waitlist")

    def test_full_with_the_queue_closed_offers_no_next_step(self, api):
        event = active_event(2, attendees=2, waitlist_open=False)

        answer = eligibility(api, make_user(), event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == ("event_is_full", None)

    def test_full_on_attendees_alone_while_queued_means_waiting(self, api):
        event = active_event(2, attendees=2)
        _first, second = queue_in_order(event, 2)

        answer = eligibility(api, second, event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == (
            "event_is_full",
            "wait_for_open_spot",
        )
        assert answer["waitlist_position"] == 2

    def test_full_because_of_reserved_offers_for_a_visitor(self, api):
        event = active_event(3, attendees=1)
        first, second = queue_in_order(event, 2)
        give_offer(event, first, expires_at=T0 + timedelta(minutes=40))
        give_offer(event, second, expires_at=T0 + timedelta(minutes=32))
        give_offer(event, make_user(), expires_at=T0 - timedelta(minutes=1))  # lapsed: no hold

        answer = eligibility(api, make_user(), event)["eligibility"]

        assert answer["allowed"] is False
        assert (answer["reason_code"], answer["next_step"]) == (
            "spots_reserved_for_waitlist",
            "join_waitlist",
        )
        assert answer["pending_offers_count"] == 2
        assert at(answer["next_batch_at"]) == T0 + timedelta(minutes=32)

    def test_next_batch_at_is_given_in_the_users_timezone(self, api):
        event = active_event(2, attendees=1)
        give_offer(event, make_user(), expires_at=T0 + WINDOW)

        answer = eligibility(api, make_user(timezone="Asia/Tokyo"), event)["eligibility"]

        assert answer["next_batch_at"].endswith("+09:00")
        assert at(answer["next_batch_at"]) == T0 + WINDOW

    def test_full_because_of_reserved_offers_while_queued_without_an_offer(self, api):
        event = active_event(3, attendees=1)
        holder, other_holder, waiting = queue_in_order(event, 3)
        give_offer(event, holder)
        give_offer(event, other_holder)

        answer = eligibility(api, waiting, event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == (
            "on_waitlist_waiting_for_batch",
            "wait_for_open_spot",
        )
        assert answer["waitlist_position"] == 1
        assert answer["pending_offers_count"] == 2

    def test_an_offer_holder_is_allowed_with_the_countdown(self, api):
        event = active_event(3, attendees=1)
        holder, other_holder = queue_in_order(event, 2)
        offer = give_offer(event, holder, expires_at=T0 + WINDOW)
        give_offer(event, other_holder)

        body = eligibility(api, holder, event)
        answer = body["eligibility"]

        assert answer["allowed"] is True
        assert (answer["reason_code"], answer["next_step"]) == (None, None)
        assert at(answer["active_offer_expires_at"]) == T0 + WINDOW
        assert body["waitlist"]["position"] is None
        assert body["offer"]["id"] == str(offer.pk)

    def test_after_the_cutoff_the_ordinary_rules_apply(self, api):
        cutoff = START - timedelta(hours=6)
        event = active_event(2, attendees=1, waitlist_cutoff_date=cutoff)
        # A non-cutoff offer from before the cutoff still holds the last seat.
        give_offer(event, make_user(), expires_at=cutoff + timedelta(hours=1))

        with time_machine.travel(cutoff + timedelta(minutes=5), tick=False):
            answer = eligibility(api, make_user(), event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == ("event_is_full", "join_waitlist")

    def test_after_the_cutoff_a_queued_user_waits_at_most(self, api):
        cutoff = START - timedelta(hours=6)
        event = active_event(2, attendees=2, waitlist_cutoff_date=cutoff)
        [queued] = queue_in_order(event, 1)

        with time_machine.travel(cutoff + timedelta(minutes=5), tick=False):
            answer = eligibility(api, queued, event)["eligibility"]

        assert (answer["reason_code"], answer["next_step"]) == (
            "event_is_full",
            "wait_for_open_spot",
        )

    def test_a_lapsed_offer_is_no_countdown(self, api):
        event = active_event(2, attendees=2)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder, expires_at=T0 - timedelta(seconds=1))

        body = eligibility(api, holder, event)

        assert body["eligibility"]["active_offer_expires_at"] is None
        assert body["offer"] is None
        assert body["waitlist"]["position"] == 1
        assert WaitlistOffer.objects.get(user=holder).status == Status.PENDING


def _rsvp_yes(api, event, user):
    return api(user).post(f"/events/{event.pk}/rsvp/yes")


def _checkout_free(api, event, user):
    tier = event.ticket_tiers.get(payment_method=TicketTier.PaymentMethod.FREE)
    return api(user).post(f"/events/{event.pk}/checkout", cart((tier, 1)))


def _checkout_unpaid(api, event, user):
    return api(user).post(f"/events/{event.pk}/checkout", cart((offline_tier(event), 1)))


def _box_office(api, event, user):
    tier = event.ticket_tiers.get(payment_method=TicketTier.PaymentMethod.FREE)
    return api(event.organization.owner).post(
        f"/event-admin/{event.pk}/box-office/sell",
        {"user_id": str(user.pk), "tier_id": str(tier.pk)},
    )


def _path_id(value: object) -> str | None:
    return getattr(value, "__name__", "").strip("_") or None


def _with_attendees(capacity: int, attendees: int, *, ticketed: bool) -> Event:
    """An active-waitlist event with `attendees` RSVPs, or tickets sold when ticketed."""
    if ticketed:
        return active_ticketed_event(capacity, sold=attendees)[0]
    return active_event(capacity, attendees=attendees)


class TestRegistrationLeavesTheQueue:
    @pytest.mark.parametrize(
        ("register", "ticketed"),
        [
            (_rsvp_yes, False),
            (_admin_rsvp_yes, False),
            (_checkout_free, True),
            (_checkout_unpaid, True),
            (_box_office, True),
        ],
        ids=_path_id,
    )
    def test_any_registration_removes_the_queue_entry(self, api, register, ticketed):
        event = _with_attendees(3, 1, ticketed=ticketed)
        [member] = queue_in_order(event, 1)

        response = register(api, event, member)

        assert response.status_code in (200, 201), response.json()
        assert not EventWaitList.objects.filter(event=event, user=member).exists()
        assert offers_of(event) == []

    @pytest.mark.parametrize(
        "status", [Ticket.Status.ACTIVE, Ticket.Status.PENDING, "rsvp"], ids=str
    )
    def test_joining_while_attending_is_a_conflict(self, api, status):
        if status == "rsvp":
            event = active_event(1, waitlist_batch_size=1)
            [attendee] = fill_with_rsvps(event, 1)
        else:
            event, _tier, [attendee] = active_ticketed_event(1, sold=1)
            Ticket.objects.filter(event=event).update(status=status)

        response = api(attendee).post(f"/events/{event.pk}/waitlist/join")

        assert response.status_code == 409
        assert response.json()["code"] == "already_attending"
        assert not EventWaitList.objects.filter(event=event).exists()


class TestRefusalsSpeakTheUsersTime:
    """A refused registration's body carries next_batch_at in the user's timezone, like
    my-status: from the gate (self-service) and from the locked re-check (staff)."""

    @pytest.mark.parametrize(
        ("register", "ticketed"),
        [(_rsvp_yes, False), (_admin_rsvp_yes, False), (_checkout_free, True)],
        ids=_path_id,
    )
    def test_next_batch_at_is_in_the_users_timezone(self, api, register, ticketed):
        event = _with_attendees(2, 1, ticketed=ticketed)
        give_offer(event, make_user(), expires_at=T0 + WINDOW)

        response = register(api, event, make_user(timezone="Asia/Tokyo"))

        assert response.status_code == 409, response.json()
        body = response.json()
        assert body["code"] == "spots_reserved_for_waitlist"
        assert body["next_batch_at"].endswith("+09:00")
        assert at(body["next_batch_at"]) == T0 + WINDOW
