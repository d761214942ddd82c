"""Parties on the waitlist (issue 12 item 3): a member queues for up to the event's largest
party, an offer holds the whole party, and every capacity figure counts seats.

Driven through the API where a user would notice (join, RSVP, my-status, event detail,
the organiser's offer override) and through the real processor for batch selection.
"""

import uuid
from datetime import timedelta
from typing import Any

import pytest
import time_machine

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.services import user_departure
from events.core.services.event_manager import EventManager
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import (
    T0,
    WINDOW,
    Status,
    active_event,
    offers_of,
    reload,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


def party_event(capacity: int = 10, attendees: int = 0, **fields: Any) -> Event:
    fields.setdefault("waitlist_max_party_size", 4)
    return active_event(capacity, attendees, **fields)


def queue_parties(event: Event, *sizes: int) -> list[User]:
    """One member per party size, one second apart in the queue, in that order."""
    people = [make_user() for _ in sizes]
    for rank, (person, size) in enumerate(zip(people, sizes, strict=True)):
        entry = EventWaitList.objects.create(event=event, user=person, party_size=size)
        EventWaitList.objects.filter(pk=entry.pk).update(
            created_at=T0 - timedelta(days=1) + timedelta(seconds=rank)
        )
    return people


def offer_for(event: Event, person: User, seats: int) -> WaitlistOffer:
    return WaitlistOffer.objects.create(
        event=event, user=person, expires_at=T0 + WINDOW, batch_id=uuid.uuid4(), seats=seats
    )


def held_offers(event: Event) -> dict[uuid.UUID, int]:
    return {offer.user_id: offer.seats for offer in offers_of(event, Status.PENDING)}


def join(api, person: User, event: Event, body: dict[str, Any] | None = None):
    return api(person).post(f"/events/{event.pk}/waitlist/join", body)


def rsvp_yes(api, person: User, event: Event, guests: int | None = None):
    body = None if guests is None else {"guests": guests}
    return api(person).post(f"/events/{event.pk}/rsvp/yes", body)


class TestJoiningAsAParty:
    def test_a_party_within_the_maximum_is_queued_with_its_size(self, api):
        event = party_event(capacity=2, attendees=2)
        person = make_user()

        response = join(api, person, event, {"party_size": 3})

        assert response.status_code == 201, response.json()
        assert response.json()["party_size"] == 3
        assert EventWaitList.objects.get(event=event, user=person).party_size == 3

    def test_a_party_over_the_maximum_is_refused_and_nothing_is_queued(self, api):
        event = party_event(capacity=2, attendees=2)
        person = make_user()

        response = join(api, person, event, {"party_size": 5})

        assert response.status_code == 400
        assert response.json()["code"] == "party_too_large"
        assert response.json()["max_party_size"] == 4
        assert not EventWaitList.objects.filter(event=event).exists()

    def test_an_event_without_parties_refuses_two(self, api):
        event = active_event(capacity=2, attendees=2)

        response = join(api, make_user(), event, {"party_size": 2})

        assert response.json()["code"] == "party_too_large"

    def test_an_empty_body_is_still_a_party_of_one(self, api):
        event = party_event(capacity=2, attendees=2)
        person = make_user()

        response = join(api, person, event)

        assert response.status_code == 201
        assert EventWaitList.objects.get(event=event, user=person).party_size == 1

    def test_a_party_that_does_not_fit_may_queue_beside_free_seats(self, api):
        """Two seats free: one person could register, a party of three cannot."""
        event = party_event(capacity=10, attendees=8)
        assert join(api, make_user(), event).json()["code"] == "capacity_available"

        response = join(api, make_user(), event, {"party_size": 3})

        assert response.status_code == 201


class TestBatchesOfParties:
    def test_strict_waits_for_the_head_party_to_fit(self):
        event = party_event(capacity=10, attendees=7)  # 3 seats free
        queue_parties(event, 4, 1, 2)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "no_eligible_users"
        assert held_offers(event) == {}

    def test_fill_lets_smaller_parties_behind_take_the_seats(self):
        event = party_event(capacity=10, attendees=7, waitlist_party_policy="fill")
        _head, one, two, _three = queue_parties(event, 4, 1, 2, 1)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 2
        assert held_offers(event) == {one.pk: 1, two.pk: 2}

    def test_the_head_keeps_its_place_and_is_served_when_its_party_fits(self):
        event = party_event(capacity=10, attendees=3, waitlist_party_policy="fill")
        head, small = queue_parties(event, 4, 1)  # 7 free: everyone fits

        waitlist_service.process_waitlist_for_event(event.pk)

        assert held_offers(event) == {head.pk: 4, small.pk: 1}

    def test_an_offer_holds_the_whole_party_so_the_next_pass_sees_no_seats(self):
        event = party_event(capacity=10, attendees=6)  # 4 free
        queue_parties(event, 4, 1)

        first = waitlist_service.process_waitlist_for_event(event.pk)
        second = waitlist_service.process_waitlist_for_event(event.pk)

        assert first.offers_created == 1
        assert second.status == "no_spots"

    def test_batch_size_counts_offers_not_seats(self):
        event = party_event(
            capacity=20, attendees=0, waitlist_batch_size=2, waitlist_party_policy="fill"
        )
        first, second, _third = queue_parties(event, 3, 3, 3)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert held_offers(event) == {first.pk: 3, second.pk: 3}

    def test_the_cutoff_batch_offers_everyone_with_their_party(self):
        event = party_event(capacity=10, attendees=9, waitlist_cutoff_date=T0 - timedelta(hours=1))
        big, small = queue_parties(event, 4, 2)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.is_cutoff_batch and result.offers_created == 2
        assert held_offers(event) == {big.pk: 4, small.pk: 2}


class TestSeatsNotRows:
    def test_seats_held_in_the_event_detail_sums_the_parties(self, api):
        event = party_event(capacity=10, attendees=5)
        one, two = make_user(), make_user()
        offer_for(event, one, 3)
        offer_for(event, two, 2)

        body = api(make_user()).get(f"/events/{event.pk}").json()

        assert body["seats_held"] == 5

    def test_a_party_offer_keeps_everyone_else_out_of_its_seats(self, api):
        event = party_event(capacity=10, attendees=7)
        offer_for(event, make_user(), 3)

        response = rsvp_yes(api, make_user(), event)

        assert response.status_code == 409
        assert response.json()["code"] == "spots_reserved_for_waitlist"
        assert response.json()["pending_offers_count"] == 3

    def test_the_organiser_cannot_offer_a_party_more_seats_than_are_free(self, api):
        event = party_event(capacity=10, attendees=8)
        (member,) = queue_parties(event, 3)
        entry = EventWaitList.objects.get(event=event, user=member)

        response = api(event.organization.owner).post(
            f"/event-admin/{event.pk}/waitlist-offers", {"waitlist_entry_id": str(entry.pk)}
        )

        assert response.status_code == 409
        assert response.json()["code"] == "capacity"
        assert not WaitlistOffer.objects.filter(event=event).exists()

    def test_an_organisers_offer_holds_the_members_party(self, api):
        event = party_event(capacity=10, attendees=7)
        (member,) = queue_parties(event, 3)
        entry = EventWaitList.objects.get(event=event, user=member)

        response = api(event.organization.owner).post(
            f"/event-admin/{event.pk}/waitlist-offers", {"waitlist_entry_id": str(entry.pk)}
        )

        assert response.status_code == 201, response.json()
        assert response.json()["seats"] == 3


class TestClaimingAPartyOffer:
    def test_the_whole_party_claims_with_guests(self, api):
        event = party_event(capacity=10, attendees=7)
        (member,) = queue_parties(event, 3)
        offer = offer_for(event, member, 3)

        response = rsvp_yes(api, member, event, guests=2)

        assert response.status_code == 200, response.json()
        offer.refresh_from_db()
        assert offer.status == Status.CLAIMED
        assert reload(event).attendee_count == 10

    def test_claiming_with_fewer_seats_releases_the_rest(self, api):
        event = party_event(capacity=10, attendees=7)
        (member,) = queue_parties(event, 3)
        offer_for(event, member, 3)

        assert rsvp_yes(api, member, event).status_code == 200

        assert reload(event).attendee_count == 8
        body = api(make_user()).get(f"/events/{event.pk}").json()
        assert body["seats_held"] == 0
        assert rsvp_yes(api, make_user(), event).status_code == 200  # a released seat

    def test_more_than_the_offer_needs_free_seats_for_the_difference(self, api):
        event = party_event(capacity=10, attendees=8)
        (member,) = queue_parties(event, 2)
        offer_for(event, member, 2)

        refused = rsvp_yes(api, member, event, guests=2)  # 3 seats, only 2 held for them
        assert refused.status_code == 409
        assert reload(event).attendee_count == 8

        assert rsvp_yes(api, member, event, guests=1).status_code == 200
        assert reload(event).attendee_count == 10


class TestGuests:
    def test_a_yes_takes_one_seat_per_person(self, api):
        event = party_event(capacity=10)
        person = make_user()

        response = rsvp_yes(api, person, event, guests=3)

        assert response.json()["guests"] == 3
        assert reload(event).attendee_count == 4

    def test_more_guests_later_are_checked_for_the_extra_seats_only(self, api):
        event = party_event(capacity=5)
        person = make_user()
        rsvp_yes(api, person, event, guests=2)

        assert rsvp_yes(api, person, event, guests=5).status_code == 409
        assert reload(event).attendee_count == 3
        assert rsvp_yes(api, person, event, guests=4).status_code == 200
        assert reload(event).attendee_count == 5

    def test_fewer_guests_free_seats_and_a_repeated_yes_keeps_them(self, api):
        event = party_event(capacity=10)
        person = make_user()
        rsvp_yes(api, person, event, guests=4)

        rsvp_yes(api, person, event, guests=1)
        assert reload(event).attendee_count == 2
        rsvp_yes(api, person, event)  # no body: the guests stay
        assert reload(event).attendee_count == 2

    def test_no_frees_the_attendee_and_the_guests(self, api):
        event = party_event(capacity=10)
        person = make_user()
        rsvp_yes(api, person, event, guests=3)

        api(person).post(f"/events/{event.pk}/rsvp/no")

        assert reload(event).attendee_count == 0
        assert EventRSVP.objects.get(event=event, user=person).guests == 0

    def test_the_organiser_deleting_an_rsvp_frees_its_guests_seats(self, api):
        event = party_event(capacity=10)
        person = make_user()
        rsvp_yes(api, person, event, guests=2)
        rsvp = EventRSVP.objects.get(event=event, user=person)

        response = api(event.organization.owner).delete(f"/event-admin/{event.pk}/rsvps/{rsvp.pk}")

        assert response.status_code == 204, response.content
        assert reload(event).attendee_count == 0

    def test_a_deleted_account_frees_its_guests_seats(self):
        event = party_event(capacity=10)
        person = make_user()
        EventManager(person, event).rsvp(EventRSVP.Status.YES, guests=2)
        user_departure.release([person])

        assert reload(event).attendee_count == 0

    @pytest.mark.parametrize("guests", [-1, 10, "two"])
    def test_guests_outside_0_to_9_are_refused_and_nothing_changes(self, api, guests):
        event = party_event(capacity=20)

        response = rsvp_yes(api, make_user(), event, guests=guests)

        assert 400 <= response.status_code < 500 and response.status_code != 404
        assert reload(event).attendee_count == 0


class TestPartySettings:
    def test_the_organiser_sets_the_largest_party_and_the_policy(self, api):
        event = active_event()

        response = api(event.organization.owner).patch(
            f"/event-admin/{event.pk}/waitlist-settings",
            {"waitlist_max_party_size": 6, "waitlist_party_policy": "fill"},
        )

        assert response.status_code == 200, response.json()
        assert response.json()["waitlist_max_party_size"] == 6
        event = reload(event)
        assert (event.waitlist_max_party_size, event.waitlist_party_policy) == (6, "fill")

    @pytest.mark.parametrize("size", [0, 11])
    def test_a_largest_party_outside_1_to_10_is_refused(self, api, size):
        event = active_event()

        response = api(event.organization.owner).patch(
            f"/event-admin/{event.pk}/waitlist-settings", {"waitlist_max_party_size": size}
        )

        assert response.status_code == 400
        assert "waitlist_max_party_size" in response.json()["errors"]
        assert reload(event).waitlist_max_party_size == 1


class TestWhatTheHolderSees:
    def test_my_status_shows_the_seats_and_tier_of_the_live_offer(self, api):
        event = party_event(capacity=10, attendees=7)
        (member,) = queue_parties(event, 3)
        offer_for(event, member, 3)

        body = api(member).get(f"/events/{event.pk}/my-status").json()

        assert (body["offer"]["seats"], body["offer"]["tier_id"]) == (3, None)
        assert body["eligibility"]["allowed"] is True
