"""The advanced waitlist as readers see it (issue 4, read side): `seats_held` on the event
list and detail, the caller's offers on `/me/waitlist`, and the admin queue with
`current_offer`. Order and position are `selectors.waitlist`'s everywhere.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org, make_staff, make_tier
from events.models import Event, Venue, WaitlistOffer
from events.waitlist.tests.waitlist_builders import OFFER_FIELDS
from events.waitlist.tests.waitlist_read_side_support import (
    Status,
    _in,
    admin_queue,
    full_event,
    instant,
    offer,
    queue,
)

pytestmark = pytest.mark.django_db


# -- seats_held ------------------------------------------------------------------------
class TestSeatsHeld:
    def test_only_live_non_cutoff_offers_hold_seats(self, api):
        event = full_event(capacity=20)
        offer(event)
        offer(event, expires_at=_in(minutes=5))
        offer(event, expires_at=_in(minutes=-1))  # PENDING, lapsed, not swept yet
        offer(event, is_cutoff_batch=True)
        offer(event, status=Status.CLAIMED)
        offer(event, status=Status.REVOKED)
        offer(event, status=Status.EXPIRED)
        offer(make_event(max_attendees=5))  # another event's

        [item] = [i for i in api(None).get("/events").json()["results"] if i["id"] == str(event.pk)]
        detail = api(None).get(f"/events/{event.pk}").json()

        assert item["seats_held"] == 2
        assert detail["seats_held"] == 2

    def test_an_event_without_offers_holds_none(self, api):
        event = full_event()

        assert api(None).get(f"/events/{event.pk}").json()["seats_held"] == 0

    def test_hidden_capacity_nulls_seats_held_for_everyone_but_staff(self, api):
        org = make_org()
        event = full_event(
            organization=org,
            visibility_settings={"show_capacity": False, "show_attendee_count": True},
        )
        offer(event)

        for viewer in (None, make_user()):
            assert api(viewer).get(f"/events/{event.pk}").json()["seats_held"] is None
            [item] = api(viewer).get("/events").json()["results"]
            assert item["seats_held"] is None
        for viewer in (make_staff(org), org.owner):
            assert api(viewer).get(f"/events/{event.pk}").json()["seats_held"] == 1
            [item] = api(viewer).get("/events").json()["results"]
            assert item["seats_held"] == 1

    @pytest.mark.parametrize("count", [5, 50])
    def test_a_page_with_offers_costs_a_fixed_number_of_queries(
        self, api, django_assert_num_queries, count
    ):
        """JWT user, COUNT, the page (seats held annotated on each row), the tiers."""
        org = make_org()
        venue = Venue.objects.create(organization=org, name="Hall", capacity=50)
        for n in range(count):
            event = make_event(org, venue=venue, max_attendees=10, requires_ticket=True)
            make_tier(event)
            for _ in range(n % 3):
                offer(event)
            offer(event, is_cutoff_batch=True)
        client = api(make_user())

        with django_assert_num_queries(4):
            results = client.get("/events", page_size=50).json()["results"]

        assert len(results) == count
        assert sorted(item["seats_held"] for item in results) == sorted(n % 3 for n in range(count))


# -- /me/waitlist ----------------------------------------------------------------------
class TestMyWaitlistOffers:
    def test_each_entry_carries_the_callers_live_offer(self, api, user):
        offered = full_event(capacity=3, attendees=2, start=_in(days=1))
        waiting = full_event(capacity=3, attendees=2, start=_in(days=2))
        lapsed = full_event(capacity=3, attendees=2, start=_in(days=3))
        for event in (offered, waiting, lapsed):
            queue(event, user)
        mine = offer(offered, user, expires_at=_in(hours=1), is_cutoff_batch=True)
        offer(waiting)  # someone else's offer is not the caller's
        offer(lapsed, user, expires_at=_in(minutes=-1))
        offer(lapsed, user, status=Status.EXPIRED)

        results = api(user).get("/me/waitlist").json()["results"]

        assert [r["event"]["id"] for r in results] == [
            str(e.pk) for e in (offered, waiting, lapsed)
        ]
        first, second, third = results
        assert first["offer"]["id"] == str(mine.pk)
        assert (first["offer"]["status"], first["offer"]["is_cutoff_batch"]) == ("pending", True)
        assert instant(first["offer"]["expires_at"]) == mine.expires_at
        assert first["position"] is None
        assert (second["offer"], second["position"]) == (None, 1)
        assert (third["offer"], third["position"]) == (None, 1)

    @pytest.mark.parametrize("count", [2, 12])
    def test_offers_and_positions_cost_a_fixed_number_of_queries(
        self, api, user, django_assert_num_queries, count
    ):
        """JWT user, COUNT, the page (positions annotated), the caller's live offers."""
        for n in range(count):
            event = full_event(capacity=3, attendees=2)
            queue(event, make_user(), user)
            if n % 2:
                offer(event, user)
        client = api(user)

        with django_assert_num_queries(4):
            results = client.get("/me/waitlist", page_size=50).json()["results"]

        assert sum(r["offer"] is not None for r in results) == count // 2
        assert all((r["position"] is None) == (r["offer"] is not None) for r in results)


# -- admin queue -----------------------------------------------------------------------
class TestAdminQueueOffers:
    def test_current_offer_is_the_members_latest_offer_of_any_status(self, api):
        event = full_event(capacity=3, attendees=2)
        holder, lapsed, revoked, reactivated, nobody = (make_user() for _ in range(5))
        queue(event, holder, lapsed, revoked, reactivated, nobody)
        live = offer(event, holder)
        old = offer(event, lapsed, status=Status.EXPIRED, expires_at=_in(hours=-3))
        newest = offer(event, lapsed, status=Status.EXPIRED, expires_at=_in(hours=-1))
        WaitlistOffer.objects.filter(pk=old.pk).update(updated_at=_in(hours=-3))
        last = offer(event, revoked, status=Status.REVOKED)
        offer(make_event(), revoked)  # another event's offer is never this queue's
        back = offer(event, reactivated)  # reactivated: an old row, PENDING again
        later = offer(event, reactivated, status=Status.EXPIRED, expires_at=_in(hours=-1))
        WaitlistOffer.objects.filter(pk=back.pk).update(created_at=_in(hours=-5))

        results = {r["user"]["id"]: r["current_offer"] for r in admin_queue(api, event)}

        assert results[str(holder.pk)]["id"] == str(live.pk)
        assert results[str(lapsed.pk)]["id"] == str(newest.pk)
        assert results[str(revoked.pk)]["id"] == str(last.pk)
        assert results[str(reactivated.pk)]["id"] == str(back.pk) != str(later.pk)
        assert results[str(nobody.pk)] is None

    def test_current_offer_has_the_offer_shape(self, api):
        event = full_event(capacity=3, attendees=2)
        holder = make_user()
        queue(event, holder)
        live = offer(event, holder, expires_at=_in(hours=1))

        [entry] = admin_queue(api, event)

        current = entry["current_offer"]
        assert set(current) >= OFFER_FIELDS
        assert (current["event_id"], current["status"]) == (str(event.pk), "pending")
        assert current["user"]["id"] == str(holder.pk)
        assert current["batch_id"] == str(live.batch_id)
        assert instant(current["expires_at"]) == live.expires_at
        assert entry["position"] is None

    def test_search_keeps_positions_of_the_whole_queue(self, api):
        event = full_event(capacity=3, attendees=2)
        holder = make_user()
        lapsed = make_user(first_name="Zelda")
        other = make_user()
        queue(event, lapsed, holder, other, expired={lapsed: _in(hours=-1)})
        offer(event, holder)

        [entry] = admin_queue(api, event, search="zelda")

        assert (entry["user"]["id"], entry["position"]) == (str(lapsed.pk), 2)

    def test_the_queue_costs_the_same_for_3_or_30_entries(self, api):
        def build(size: int) -> Event:
            event = full_event(capacity=40, attendees=2)
            members = [make_user() for _ in range(size)]
            queue(event, *members, expired={members[0]: _in(hours=-1)})
            for member in members[1::2]:
                offer(event, member)
            for member in members[2::2]:
                offer(event, member, status=Status.EXPIRED, expires_at=_in(hours=-1))
            return event

        small, large = build(3), build(30)
        counts = []
        for event in (small, large):
            client = api(event.organization.owner)
            with CaptureQueriesContext(connection) as captured:
                results = client.get(f"/event-admin/{event.pk}/waitlist", page_size=50).json()
            assert all(
                r["current_offer"]["user"]["id"] == r["user"]["id"]
                for r in results["results"]
                if r["current_offer"] is not None
            )
            counts.append(len(captured.captured_queries))

        assert counts[0] == counts[1] == QUEUE_QUERIES


#: JWT user, the event, COUNT, the page (positions annotated), the members' current offers.
QUEUE_QUERIES = 5
