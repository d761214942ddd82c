"""HTTP tests of the caller's own lists: /me/tickets, /me/rsvps, /me/waitlist."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_tier
from events.models import EventRSVP, EventWaitList, Ticket

pytestmark = pytest.mark.django_db


LISTS = ["/me/tickets", "/me/rsvps", "/me/waitlist"]


def ticket(event, user, **fields):
    tier = event.ticket_tiers.first() or make_tier(event, name="Standard")
    return Ticket.objects.create(event=event, tier=tier, user=user, **fields)


def queue(event, user, joined_minutes_ago):
    """A waitlist entry with a chosen join time (FIFO order must not hang on clock ticks)."""
    entry = EventWaitList.objects.create(event=event, user=user)
    joined = timezone.now() - timedelta(minutes=joined_minutes_ago)
    EventWaitList.objects.filter(pk=entry.pk).update(created_at=joined)
    entry.refresh_from_db()
    return entry


def ids(response):
    return [item["id"] for item in response.json()["results"]]


def event_ids(response):
    return [item["event"]["id"] for item in response.json()["results"]]


@pytest.mark.parametrize("path", LISTS)
def test_my_lists_require_authentication(api, path):
    response = api(None).get(path)

    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


# -- tickets ------------------------------------------------------------------------


def test_my_tickets_shows_own_tickets_with_event_and_tier(api, user):
    event = make_event(name="Gala", timezone="Europe/Rome")
    tier = make_tier(event, name="VIP")
    mine = Ticket.objects.create(event=event, tier=tier, user=user, holder_name="Guest of Honour")

    response = api(user).get("/me/tickets")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    item = body["results"][0]
    assert item["id"] == str(mine.pk)
    assert item["event"] == {
        "id": str(event.pk),
        "name": "Gala",
        "start": item["event"]["start"],
        "timezone": "Europe/Rome",
    }
    assert item["tier"] == {"id": str(tier.pk), "name": "VIP"}
    assert item["status"] == "active"
    assert item["holder_name"] == "Guest of Honour"
    assert item["created_at"]


def test_my_tickets_hides_other_users_tickets(api, user):
    event = make_event()
    mine = ticket(event, user)
    ticket(event, make_user())
    ticket(make_event(), make_user())

    response = api(user).get("/me/tickets")

    assert ids(response) == [str(mine.pk)]


def test_my_tickets_include_cancelled_ones_with_their_status(api, user):
    ticket(make_event(), user, status=Ticket.Status.CANCELLED)

    response = api(user).get("/me/tickets")

    assert [item["status"] for item in response.json()["results"]] == ["cancelled"]


def test_my_tickets_list_upcoming_events_first_then_past_ones_newest_first(api, user):
    now = timezone.now()
    far = make_event(start=now + timedelta(days=30))
    past_old = make_event(
        start=now - timedelta(days=10), end=now - timedelta(days=10) + timedelta(hours=2)
    )
    soon = make_event(start=now + timedelta(days=2))
    past_recent = make_event(
        start=now - timedelta(days=3), end=now - timedelta(days=3) + timedelta(hours=2)
    )
    ongoing = make_event(start=now - timedelta(hours=1), end=now + timedelta(hours=1))
    for event in (far, past_old, soon, past_recent, ongoing):
        ticket(event, user)

    response = api(user).get("/me/tickets")

    expected = [ongoing, soon, far, past_recent, past_old]
    assert event_ids(response) == [str(event.pk) for event in expected]


def test_my_tickets_are_paginated(api, user):
    for _ in range(3):
        ticket(make_event(), user)

    first = api(user).get("/me/tickets", page_size=2).json()
    second = api(user).get("/me/tickets", page_size=2, page=2).json()

    assert first["count"] == 3
    assert len(first["results"]) == 2
    assert first["next"]
    assert len(second["results"]) == 1
    all_ids = {item["id"] for item in first["results"] + second["results"]}
    assert len(all_ids) == 3


@pytest.mark.parametrize("count", [1, 6])
def test_my_tickets_query_count_does_not_grow_with_rows(
    api, user, django_assert_num_queries, count
):
    for _ in range(count):
        event = make_event()
        ticket(event, user)
    client = api(user)  # issuing the token writes an OutstandingToken row: keep it outside

    # user lookup for the JWT, COUNT(*), one page with event and tier joined
    with django_assert_num_queries(3):
        response = client.get("/me/tickets")

    assert len(response.json()["results"]) == count


# -- RSVPs --------------------------------------------------------------------------


def test_my_rsvps_show_own_answers_only(api, user):
    event = make_event(name="Picnic")
    mine = EventRSVP.objects.create(event=event, user=user, status=EventRSVP.Status.MAYBE)
    EventRSVP.objects.create(event=event, user=make_user(), status=EventRSVP.Status.YES)
    EventRSVP.objects.create(event=make_event(), user=make_user(), status=EventRSVP.Status.NO)

    response = api(user).get("/me/rsvps")

    assert response.status_code == 200
    results = response.json()["results"]
    assert [item["id"] for item in results] == [str(mine.pk)]
    assert results[0]["status"] == "maybe"
    assert results[0]["event"]["name"] == "Picnic"
    assert set(results[0]) == {"id", "event", "status"}


def test_my_rsvps_list_upcoming_first(api, user):
    now = timezone.now()
    past = make_event(
        start=now - timedelta(days=5), end=now - timedelta(days=5) + timedelta(hours=1)
    )
    later = make_event(start=now + timedelta(days=9))
    sooner = make_event(start=now + timedelta(days=1))
    for event in (past, later, sooner):
        EventRSVP.objects.create(event=event, user=user, status=EventRSVP.Status.YES)

    response = api(user).get("/me/rsvps")

    assert event_ids(response) == [str(sooner.pk), str(later.pk), str(past.pk)]


def test_my_rsvps_query_count_is_fixed(api, user, django_assert_num_queries):
    for _ in range(4):
        EventRSVP.objects.create(event=make_event(), user=user, status=EventRSVP.Status.YES)
    client = api(user)

    with django_assert_num_queries(3):
        client.get("/me/rsvps")


# -- waitlist -----------------------------------------------------------------------


def test_my_waitlist_shows_own_entries_with_fifo_position(api, user):
    event = make_event()
    queue(event, make_user(), joined_minutes_ago=30)
    queue(event, make_user(), joined_minutes_ago=20)
    mine = queue(event, user, joined_minutes_ago=10)
    queue(event, make_user(), joined_minutes_ago=5)

    response = api(user).get("/me/waitlist")

    assert response.status_code == 200
    results = response.json()["results"]
    assert [item["id"] for item in results] == [str(mine.pk)]
    assert results[0]["position"] == 3
    assert results[0]["offer"] is None
    assert results[0]["event"]["id"] == str(event.pk)
    assert results[0]["created_at"]


def test_my_waitlist_positions_are_per_event(api, user):
    crowded = make_event(start=timezone.now() + timedelta(days=1))
    empty = make_event(start=timezone.now() + timedelta(days=2))
    queue(crowded, make_user(), joined_minutes_ago=60)
    queue(crowded, make_user(), joined_minutes_ago=50)
    queue(crowded, user, joined_minutes_ago=1)
    queue(empty, user, joined_minutes_ago=2)
    queue(empty, make_user(), joined_minutes_ago=0)

    results = api(user).get("/me/waitlist").json()["results"]

    assert [(item["event"]["id"], item["position"]) for item in results] == [
        (str(crowded.pk), 3),
        (str(empty.pk), 1),
    ]


def test_my_waitlist_positions_break_join_time_ties_by_id(api, user):
    event = make_event()
    other = queue(event, make_user(), joined_minutes_ago=10)
    mine = queue(event, user, joined_minutes_ago=10)
    EventWaitList.objects.filter(pk=mine.pk).update(created_at=other.created_at)
    expected = 1 if str(mine.pk) < str(other.pk) else 2

    results = api(user).get("/me/waitlist").json()["results"]

    assert results[0]["position"] == expected


def test_my_waitlist_hides_other_users_entries(api, user):
    event = make_event()
    queue(event, make_user(), joined_minutes_ago=5)
    queue(make_event(), make_user(), joined_minutes_ago=5)

    response = api(user).get("/me/waitlist")

    assert response.json() == {"count": 0, "next": None, "previous": None, "results": []}


@pytest.mark.parametrize("count", [1, 5])
def test_my_waitlist_positions_cost_one_query_per_page(api, user, django_assert_num_queries, count):
    for n in range(count):
        event = make_event()
        queue(event, make_user(), joined_minutes_ago=100)
        queue(event, user, joined_minutes_ago=n)
    client = api(user)

    # user lookup, COUNT(*), the page with events joined, one grouped query for positions
    with django_assert_num_queries(4):
        response = client.get("/me/waitlist")

    assert [item["position"] for item in response.json()["results"]] == [2] * count
