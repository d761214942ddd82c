"""The advanced waitlist as readers see it (issue 4, read side): the caller's offer and
standing on `GET /events/{id}/my-status`, and rotation giving the same order everywhere.
Order and position are `selectors.waitlist`'s everywhere.
"""

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.models import Event
from events.waitlist.tests.waitlist_read_side_support import (
    _in,
    admin_queue,
    full_event,
    instant,
    offer,
    queue,
)

pytestmark = pytest.mark.django_db


def my_status(api: Any, user: User, event: Event) -> dict[str, Any]:
    response = api(user).get(f"/events/{event.pk}/my-status")
    assert response.status_code == 200, response.content
    return response.json()


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
            "seats": 1,
            "tier_id": None,
            "declined_at": None,
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
