"""`GET /events`: who sees what, filters, order, pages, hidden numbers, and a fixed query count."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db.models import IntegerField, Value
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.attendance_builders import blacklist, invite
from events.core.tests.factories import (
    fill_with_rsvps,
    make_event,
    make_member,
    make_org,
    make_staff,
    make_tier,
)
from events.models import Event, EventSeries, Organization, OrganizationMember, Venue

pytestmark = pytest.mark.django_db


def listed(api, user=None, **params) -> list[str]:
    response = api(user).get("/events", **params)
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["results"]]


def ids(*events: Event) -> list[str]:
    return [str(event.pk) for event in events]


class TestWhoSeesWhat:
    def test_anonymous_callers_see_public_open_closed_and_cancelled_events(self, api):
        org = make_org()
        shown = [
            make_event(org, status=status)
            for status in (Event.Status.OPEN, Event.Status.CLOSED, Event.Status.CANCELLED)
        ]
        make_event(org, status=Event.Status.DRAFT)
        for visibility in (
            Event.Visibility.UNLISTED,
            Event.Visibility.PRIVATE,
            Event.Visibility.MEMBERS_ONLY,
            Event.Visibility.STAFF_ONLY,
        ):
            make_event(org, visibility=visibility)

        assert sorted(listed(api)) == sorted(ids(*shown))

    def test_a_private_event_shows_to_the_invited_and_the_attending_only(self, api):
        event = make_event(visibility=Event.Visibility.PRIVATE)
        invited, stranger = make_user(), make_user()
        invite(event, invited)
        [attendee] = fill_with_rsvps(event, 1)

        assert listed(api, invited) == ids(event)
        assert listed(api, attendee) == ids(event)
        assert listed(api, stranger) == []

    @pytest.mark.parametrize(
        ("status", "sees"),
        [
            (OrganizationMember.Status.ACTIVE, True),
            (OrganizationMember.Status.PAUSED, True),
            (OrganizationMember.Status.CANCELLED, False),
            (OrganizationMember.Status.BANNED, False),
        ],
    )
    def test_a_members_only_event_shows_to_live_members(self, api, status, sees):
        event = make_event(visibility=Event.Visibility.MEMBERS_ONLY)
        member = make_member(event.organization, status=status)

        assert listed(api, member) == (ids(event) if sees else [])
        assert listed(api, make_user()) == []

    @pytest.mark.parametrize("role", ["owner", "staff"])
    def test_owner_and_staff_see_drafts_and_staff_only_events(self, api, role):
        org = make_org()
        actor = org.owner if role == "owner" else make_staff(org)
        draft = make_event(org, status=Event.Status.DRAFT)
        staff_only = make_event(org, visibility=Event.Visibility.STAFF_ONLY)
        make_event(status=Event.Status.DRAFT)  # another organisation's draft

        assert sorted(listed(api, actor)) == sorted(ids(draft, staff_only))
        assert listed(api, make_user()) == []

    def test_a_blacklisted_user_sees_nothing_of_that_organisation(self, api, user):
        shunning = make_org()
        make_event(shunning)
        elsewhere = make_event()
        blacklist(shunning, user=user)

        assert listed(api, user) == ids(elsewhere)

    def test_a_blacklist_by_email_hides_the_organisation_whatever_the_case(self, api):
        user = make_user("Someone@Example.org")
        shunning = make_org()
        make_event(shunning)
        blacklist(shunning, email="SOMEONE@example.ORG")

        assert listed(api, user) == []

    def test_templates_never_appear_not_even_to_the_owner(self, api):
        org = make_org()
        make_event(org, is_template=True, status=Event.Status.DRAFT)

        assert listed(api) == []
        assert listed(api, org.owner) == []

    def test_a_private_organisation_shows_its_events_to_members_and_staff_only(self, api):
        org = make_org(visibility=Organization.Visibility.PRIVATE)
        event = make_event(org)
        member = make_member(org)

        assert listed(api) == []
        assert listed(api, make_user()) == []
        assert listed(api, member) == ids(event)
        assert listed(api, org.owner) == ids(event)


class TestFiltersAndOrder:
    def test_soonest_first_and_from_now_on(self, api):
        now = timezone.now()
        later = make_event(start=now + timedelta(days=3))
        sooner = make_event(start=now + timedelta(days=1))
        in_progress = make_event(start=now - timedelta(hours=1), end=now + timedelta(hours=1))
        make_event(start=now - timedelta(days=2), end=now - timedelta(days=1))  # over

        assert listed(api) == ids(in_progress, sooner, later)

    def test_start_after_reaches_into_the_past(self, api):
        now = timezone.now()
        past = make_event(start=now - timedelta(days=2), end=now - timedelta(days=1))
        future = make_event(start=now + timedelta(days=1))
        after = (now - timedelta(days=3)).isoformat()

        assert listed(api, start_after=after) == ids(past, future)

    def test_start_after_and_start_before_form_a_half_open_interval(self, api):
        base = datetime(2031, 5, 1, 12, tzinfo=UTC)
        at_start = make_event(start=base)
        inside = make_event(start=base + timedelta(days=1))
        make_event(start=base + timedelta(days=2))  # at start_before: excluded

        result = listed(
            api,
            start_after=base.isoformat(),
            start_before=(base + timedelta(days=2)).isoformat(),
        )

        assert result == ids(at_start, inside)

    def test_a_time_without_offset_is_read_as_utc(self, api):
        event = make_event(start=datetime(2031, 5, 1, 12, tzinfo=UTC))

        assert listed(api, start_after="2031-05-01T12:00:00") == ids(event)
        assert listed(api, start_after="2031-05-01T12:00:01") == []

    def test_filter_by_organisation_slug(self, api):
        org = make_org()
        mine = make_event(org)
        make_event()

        assert listed(api, organization=org.slug) == ids(mine)
        assert listed(api, organization="no-such-org") == []

    def test_filter_by_series(self, api):
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Tuesdays", slug="tuesdays")
        in_series = make_event(org, event_series=series, occurrence_index=1)
        make_event(org)

        response = api(None).get("/events", series=str(series.pk))

        assert [item["id"] for item in response.json()["results"]] == ids(in_series)
        item = response.json()["results"][0]
        assert item["event_series_id"] == str(series.pk)
        assert item["occurrence_index"] == 1

    def test_filter_by_status(self, api):
        cancelled = make_event(status=Event.Status.CANCELLED)
        make_event()

        assert listed(api, status="cancelled") == ids(cancelled)

    @pytest.mark.parametrize(
        "params",
        [
            {"status": "postponed"},
            {"series": "not-a-uuid"},
            {"start_after": "yesterday"},
            {"page_size": "101"},
            {"page": "0"},
        ],
    )
    def test_a_bad_query_is_422_with_the_error_shape(self, api, params):
        response = api(None).get("/events", **params)

        assert response.status_code == 422
        assert response.json()["code"] == "invalid"
        assert response.json()["errors"]


class TestPages:
    def test_pages_have_count_next_and_previous(self, api):
        start = timezone.now() + timedelta(days=1)
        events = [make_event(start=start + timedelta(hours=i)) for i in range(5)]

        first = api(None).get("/events", page_size=2).json()
        second = api(None).get("/events", page_size=2, page=2).json()

        assert first["count"] == 5
        assert first["previous"] is None
        assert "page=2" in first["next"]
        assert [item["id"] for item in first["results"] + second["results"]] == ids(*events[:4])
        assert second["previous"] is not None

    def test_the_default_page_holds_20(self, api):
        for _ in range(21):
            make_event()

        body = api(None).get("/events").json()

        assert len(body["results"]) == 20
        assert body["count"] == 21


class TestHiddenNumbers:
    def test_every_item_carries_the_numbers_and_seats_held(self, api):
        event = make_event(max_attendees=10)
        fill_with_rsvps(event, 3)

        [item] = api(None).get("/events").json()["results"]

        assert (item["max_attendees"], item["effective_capacity"], item["attendee_count"]) == (
            10,
            10,
            3,
        )
        assert item["seats_held"] == 0

    def test_seats_held_is_read_from_the_page_query_annotation(
        self, api, monkeypatch, django_assert_num_queries
    ):
        """The seam for the advanced waitlist: one annotation, no query per item."""
        monkeypatch.setattr(
            "events.core.selectors.event.held_seats_expression",
            lambda: Value(3, output_field=IntegerField()),
        )
        for _ in range(3):
            make_event(max_attendees=10)

        with django_assert_num_queries(3):
            items = api(None).get("/events").json()["results"]

        assert [item["seats_held"] for item in items] == [3, 3, 3]

    def test_show_capacity_false_hides_capacity_from_everyone_but_staff(self, api):
        org = make_org()
        venue = Venue.objects.create(organization=org, name="Hall", capacity=8)
        make_event(
            org,
            max_attendees=10,
            venue=venue,
            visibility_settings={"show_capacity": False, "show_attendee_count": True},
        )
        staff = make_staff(org)

        for viewer in (None, make_user()):
            [item] = api(viewer).get("/events").json()["results"]
            assert item["max_attendees"] is None
            assert item["effective_capacity"] is None
            assert item["seats_held"] is None
            assert item["venue"]["capacity"] is None
            assert item["attendee_count"] == 0
        for viewer in (staff, org.owner):
            [item] = api(viewer).get("/events").json()["results"]
            assert (item["max_attendees"], item["effective_capacity"], item["seats_held"]) == (
                10,
                8,
                0,
            )

    def test_show_attendee_count_false_hides_the_count_from_everyone_but_staff(self, api):
        org = make_org()
        event = make_event(
            org, visibility_settings={"show_capacity": True, "show_attendee_count": False}
        )
        fill_with_rsvps(event, 2)

        [anonymous_item] = api(None).get("/events").json()["results"]
        [owner_item] = api(org.owner).get("/events").json()["results"]

        assert anonymous_item["attendee_count"] is None
        assert owner_item["attendee_count"] == 2

    def test_staff_of_another_organisation_see_no_hidden_number(self, api):
        make_event(visibility_settings={"show_capacity": False, "show_attendee_count": False})
        outsider = make_staff(make_org())

        [item] = api(outsider).get("/events").json()["results"]

        assert item["effective_capacity"] is None
        assert item["attendee_count"] is None


def _many_events(n: int) -> None:
    """n events of two organisations, each with a venue and two tiers (the expensive shape)."""
    orgs = [make_org(), make_org()]
    venues = [Venue.objects.create(organization=org, name="Hall", capacity=50) for org in orgs]
    series = EventSeries.objects.create(organization=orgs[0], name="S", slug="s")
    for i in range(n):
        org, venue = orgs[i % 2], venues[i % 2]
        event = make_event(
            org,
            venue=venue,
            requires_ticket=True,
            max_attendees=10,
            event_series=series if i % 2 == 0 else None,
            visibility_settings={"show_capacity": i % 3 != 0, "show_attendee_count": True},
        )
        make_tier(event, total_quantity=5)
        make_tier(event)


class TestQueryCount:
    @pytest.mark.parametrize(
        ("viewer", "expected"),
        [("anonymous", 3), ("user", 4)],
    )
    def test_a_page_of_50_events_costs_a_fixed_number_of_queries(
        self, api, django_assert_num_queries, viewer, expected
    ):
        """count + page (organisation, venue, staff flag, seats held) + tiers; + the JWT user."""
        _many_events(50)
        client = api(make_user() if viewer == "user" else None)

        with django_assert_num_queries(expected):
            response = client.get("/events", page_size=50)

        assert len(response.json()["results"]) == 50
        assert all(len(item["tiers"]) == 2 for item in response.json()["results"])

    def test_five_events_cost_the_same_as_fifty(self, api, django_assert_num_queries):
        _many_events(5)
        client = api(make_user())

        with django_assert_num_queries(4):
            response = client.get("/events", page_size=50)

        assert len(response.json()["results"]) == 5
