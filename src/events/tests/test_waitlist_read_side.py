"""The advanced waitlist as readers see it (issue 4, read side).

`seats_held` on the event list and detail, the caller's offer and standing on
`GET /events/{id}/my-status` and `/me/waitlist`, the admin queue with `current_offer`.
Order and position everywhere are `selectors.waitlist`'s: members who let an offer lapse
rank behind the others (seed-tables "Rotation"), and a live offer nulls the position.
"""

import uuid
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.models import Event, EventWaitList, Venue, WaitlistOffer
from events.tests.factories import fill_with_rsvps, make_event, make_org, make_staff, make_tier
from events.tests.waitlist_builders import OFFER_FIELDS

pytestmark = pytest.mark.django_db

Status = WaitlistOffer.WaitlistOfferStatus


def _in(**delta: float) -> datetime:
    """A moment relative to now, whole seconds (the JSON encoder keeps milliseconds only)."""
    return (timezone.now() + timedelta(**delta)).replace(microsecond=0)


def offer(
    event: Event,
    user: User | None = None,
    *,
    status: str = Status.PENDING,
    expires_at: datetime | None = None,
    is_cutoff_batch: bool = False,
) -> WaitlistOffer:
    return WaitlistOffer.objects.create(
        event=event,
        user=user or make_user(),
        status=status,
        expires_at=expires_at or _in(hours=2),
        batch_id=uuid.uuid4(),
        is_cutoff_batch=is_cutoff_batch,
    )


def queue(event: Event, *users: User, expired: dict[User, datetime] | None = None) -> None:
    """Queue users a minute apart in the given order; `expired` stamps a lapsed offer."""
    start = timezone.now() - timedelta(hours=3)
    for index, member in enumerate(users):
        entry = EventWaitList.objects.create(event=event, user=member)
        EventWaitList.objects.filter(pk=entry.pk).update(
            created_at=start + timedelta(minutes=index),
            last_offer_expired_at=(expired or {}).get(member),
        )


def full_event(capacity: int = 4, attendees: int = 2, **fields: Any) -> Event:
    event = make_event(
        max_attendees=capacity,
        waitlist_open=True,
        waitlist_time_window=timedelta(hours=2),
        **fields,
    )
    fill_with_rsvps(event, attendees)
    return event


def my_status(api: Any, user: User, event: Event) -> dict[str, Any]:
    response = api(user).get(f"/events/{event.pk}/my-status")
    assert response.status_code == 200, response.content
    return response.json()


def admin_queue(api: Any, event: Event, **params: Any) -> list[dict[str, Any]]:
    response = api(event.organization.owner).get(f"/event-admin/{event.pk}/waitlist", **params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def instant(value: str) -> datetime:
    return datetime.fromisoformat(value)


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


# -- my-status -------------------------------------------------------------------------
class TestMyStatusWithOffers:
    def test_an_offer_holder_sees_the_offer_and_may_register(self, api):
        event = full_event(capacity=3, attendees=2)
        holder = make_user()
        queue(event, make_user(), holder)
        mine = offer(event, holder, expires_at=_in(hours=1))

        body = my_status(api, holder, event)

        assert body["offer"] == {
            "id": str(mine.pk),
            "status": "pending",
            "expires_at": body["offer"]["expires_at"],
            "is_cutoff_batch": False,
        }
        assert instant(body["offer"]["expires_at"]) == mine.expires_at
        eligibility = body["eligibility"]
        assert eligibility["allowed"] is True
        assert instant(eligibility["active_offer_expires_at"]) == mine.expires_at
        assert eligibility["waitlist_position"] is None
        assert body["waitlist"]["position"] is None
        assert body["waitlist"]["joined_at"]

    def test_a_lapsed_offer_is_no_offer(self, api):
        event = full_event(capacity=2, attendees=2)
        member = make_user()
        queue(event, member)
        offer(event, member, expires_at=_in(minutes=-5))

        body = my_status(api, member, event)

        assert body["offer"] is None
        assert body["eligibility"]["active_offer_expires_at"] is None
        assert body["waitlist"]["position"] == 1

    def test_a_cutoff_offer_on_a_full_event_is_shown_with_its_countdown(self, api):
        event = full_event(
            capacity=2, attendees=2, start=_in(days=2), waitlist_cutoff_date=_in(hours=-1)
        )
        holder = make_user()
        queue(event, holder)
        mine = offer(event, holder, expires_at=event.start, is_cutoff_batch=True)

        body = my_status(api, holder, event)

        assert body["offer"]["is_cutoff_batch"] is True
        assert body["eligibility"]["allowed"] is False
        assert body["eligibility"]["reason_code"] == "event_is_full"
        assert instant(body["eligibility"]["active_offer_expires_at"]) == mine.expires_at

    @pytest.mark.parametrize(
        ("season", "offset"),
        [(datetime(2031, 1, 15, 12, tzinfo=ZoneInfo("UTC")), "+01:00"), (None, None)],
        ids=["winter", "now"],
    )
    def test_a_user_behind_held_seats_sees_the_next_batch_in_their_timezone(
        self, api, season, offset
    ):
        event = full_event(capacity=4, attendees=2, start=_in(days=4000))
        first_expiry = season or _in(hours=1)
        offer(event, expires_at=first_expiry)
        offer(event, expires_at=first_expiry + timedelta(hours=1))
        offer(event, expires_at=first_expiry - timedelta(hours=3), is_cutoff_batch=True)
        visitor = make_user(timezone="Europe/Vienna")

        eligibility = my_status(api, visitor, event)["eligibility"]

        assert eligibility["allowed"] is False
        assert eligibility["reason_code"] == "spots_reserved_for_waitlist"
        assert eligibility["next_step"] == "join_waitlist"
        assert eligibility["pending_offers_count"] == 2
        next_batch_at = instant(eligibility["next_batch_at"])
        assert next_batch_at == first_expiry
        vienna = first_expiry.astimezone(ZoneInfo("Europe/Vienna")).utcoffset()
        assert next_batch_at.utcoffset() == vienna
        assert eligibility["next_batch_at"].endswith(offset or ("+01:00", "+02:00"))

    def test_a_queued_user_behind_held_seats_waits_for_the_batch(self, api):
        event = full_event(capacity=4, attendees=2)
        member = make_user(timezone="America/New_York")
        queue(event, make_user(), member)
        expiry = _in(hours=1)
        offer(event, expires_at=expiry)
        offer(event)

        body = my_status(api, member, event)

        eligibility = body["eligibility"]
        assert eligibility["reason_code"] == "on_waitlist_waiting_for_batch"
        assert (eligibility["pending_offers_count"], eligibility["waitlist_position"]) == (2, 2)
        assert instant(eligibility["next_batch_at"]) == expiry
        assert (
            instant(eligibility["next_batch_at"]).utcoffset()
            == expiry.astimezone(ZoneInfo("America/New_York")).utcoffset()
        )
        assert body["offer"] is None
        assert body["waitlist"]["position"] == 2

    @pytest.mark.parametrize("holds_offer", [False, True], ids=["queued", "holder"])
    def test_my_status_costs_a_fixed_number_of_queries_with_offers(
        self, api, django_assert_num_queries, holds_offer
    ):
        """JWT user, the event, the eligibility context, tickets, the queue entry."""
        event = full_event(capacity=40, attendees=30)
        member = make_user()
        others = [make_user() for _ in range(8)]
        queue(event, *others, member)
        for other in others[:5]:
            offer(event, other)
        if holds_offer:
            offer(event, member)
        client = api(member)

        with django_assert_num_queries(5):
            body = client.get(f"/events/{event.pk}/my-status").json()

        assert (body["offer"] is not None) is holds_offer
        assert body["waitlist"]["position"] == (None if holds_offer else 4)


# -- rotation, the same order everywhere ----------------------------------------------
class TestRotation:
    @pytest.fixture
    def rotated(self) -> tuple[Event, list[User]]:
        """Queue [lapsed, early, late]: `lapsed` joined first but let an offer expire."""
        event = full_event(capacity=2, attendees=2)
        lapsed, early, late = make_user(), make_user(), make_user()
        queue(event, lapsed, early, late, expired={lapsed: _in(hours=-1)})
        return event, [lapsed, early, late]

    def test_a_lapsed_member_ranks_last_on_me_waitlist(self, api, rotated):
        _event, (lapsed, early, late) = rotated

        positions = {
            member: api(member).get("/me/waitlist").json()["results"][0]["position"]
            for member in (lapsed, early, late)
        }

        assert positions == {early: 1, late: 2, lapsed: 3}

    def test_the_admin_queue_lists_in_selection_order(self, api, rotated):
        event, (lapsed, early, late) = rotated

        results = admin_queue(api, event)

        assert [(r["user"]["id"], r["position"]) for r in results] == [
            (str(early.pk), 1),
            (str(late.pk), 2),
            (str(lapsed.pk), 3),
        ]

    def test_the_eligibility_position_follows_rotation(self, api, rotated):
        event, (lapsed, early, _late) = rotated

        assert my_status(api, lapsed, event)["eligibility"]["waitlist_position"] == 3
        assert my_status(api, early, event)["eligibility"]["waitlist_position"] == 1

    def test_among_lapsed_members_the_earlier_lapse_goes_first(self, api):
        event = full_event(capacity=2, attendees=2)
        recent, long_ago, fresh = make_user(), make_user(), make_user()
        queue(
            event,
            recent,
            long_ago,
            fresh,
            expired={recent: _in(minutes=-10), long_ago: _in(hours=-5)},
        )

        results = admin_queue(api, event)

        assert [r["user"]["id"] for r in results] == [str(u.pk) for u in (fresh, long_ago, recent)]
        assert my_status(api, recent, event)["waitlist"]["position"] == 3

    def test_a_live_offer_nulls_the_position_and_moves_the_others_up(self, api):
        event = full_event(capacity=3, attendees=2)
        holder, second, third = make_user(), make_user(), make_user()
        queue(event, holder, second, third)
        offer(event, holder)

        results = admin_queue(api, event)

        assert [r["position"] for r in results] == [None, 1, 2]
        assert api(third).get("/me/waitlist").json()["results"][0]["position"] == 2
        assert my_status(api, second, event)["eligibility"]["waitlist_position"] == 1


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
