"""`GET /events/{id}` and `GET /events/{id}/my-status`."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.attendance_builders import blacklist, invite, queue
from events.core.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_org,
    make_staff,
    make_tier,
)
from events.models import Event, EventRSVP, EventSeries, Ticket, Venue

pytestmark = pytest.mark.django_db

ALL_FIELDS = {
    "id",
    "name",
    "slug",
    "description",
    "status",
    "visibility",
    "event_type",
    "start",
    "end",
    "timezone",
    "rsvp_before",
    "check_in_starts_at",
    "check_in_ends_at",
    "max_tickets_per_user",
    "requires_ticket",
    "max_attendees",
    "effective_capacity",
    "attendee_count",
    "seats_held",
    "visibility_settings",
    "waitlist_open",
    "waitlist_time_window",
    "waitlist_batch_size",
    "waitlist_cutoff_date",
    "waitlist_lottery_mode",
    "waitlist_max_party_size",
    "waitlist_party_policy",
    "event_series_id",
    "occurrence_index",
    "is_modified",
    "organization",
    "venue",
    "tiers",
    "created_at",
    "updated_at",
}


def detail(api, user, event):
    return api(user).get(f"/events/{event.pk}")


class TestDetail:
    def test_the_detail_carries_every_event_field(self, api):
        org = make_org(timezone="Europe/Vienna")
        venue = Venue.objects.create(organization=org, name="Hall", address="Ring 1", capacity=40)
        series = EventSeries.objects.create(organization=org, name="Jams", slug="jams")
        event = make_event(
            org,
            description="**Bring** a friend",
            venue=venue,
            max_attendees=50,
            waitlist_open=True,
            waitlist_time_window=timedelta(hours=2),
            event_series=series,
            occurrence_index=3,
            is_modified=True,
        )
        fill_with_rsvps(event, 4)

        body = detail(api, None, event).json()

        assert set(body) == ALL_FIELDS
        assert body["description"] == "**Bring** a friend"
        assert body["timezone"] == "Europe/Vienna"  # the organisation's by default
        assert (body["max_attendees"], body["effective_capacity"]) == (50, 40)
        assert (body["attendee_count"], body["seats_held"]) == (4, 0)
        assert body["waitlist_open"] is True and body["requires_ticket"] is False
        # docs/spec/api.md's durations, as the settings form
        assert body["waitlist_time_window"] == "PT2H"
        assert (body["event_series_id"], body["occurrence_index"], body["is_modified"]) == (
            str(series.pk),
            3,
            True,
        )
        assert body["organization"] == {"id": str(org.pk), "slug": org.slug, "name": org.name}
        assert body["venue"] == {
            "id": str(venue.pk),
            "name": "Hall",
            "address": "Ring 1",
            "capacity": 40,
        }

    def test_the_tiers_show_price_quantities_and_sale_window(self, api):
        event = make_event(requires_ticket=True)
        opens = timezone.now() + timedelta(days=1)
        tier = make_tier(
            event,
            name="Early bird",
            price=Decimal("12.50"),
            currency="EUR",
            payment_method="offline",
            total_quantity=3,
            sales_start_at=opens,
            max_tickets_per_user=2,
        )
        fill_with_tickets(event, tier, 1)

        [body] = detail(api, None, event).json()["tiers"]

        assert body["id"] == str(tier.pk)
        assert body["name"] == "Early bird"
        assert Decimal(body["price"]) == Decimal("12.50")
        assert (body["currency"], body["payment_method"]) == ("EUR", "offline")
        assert (body["total_quantity"], body["remaining"]) == (3, 2)
        assert body["sales_start_at"] is not None and body["sales_end_at"] is None
        assert body["max_tickets_per_user"] == 2

    def test_an_unlisted_event_is_reachable_by_its_link(self, api):
        event = make_event(visibility=Event.Visibility.UNLISTED)

        assert detail(api, None, event).status_code == 200

    def test_a_draft_shows_to_staff_only(self, api):
        org = make_org()
        event = make_event(org, status=Event.Status.DRAFT)

        assert detail(api, None, event).status_code == 404
        assert detail(api, make_user(), event).status_code == 404
        assert detail(api, make_staff(org), event).status_code == 200

    def test_a_template_is_404_even_to_the_owner(self, api):
        org = make_org()
        template = make_event(org, is_template=True, status=Event.Status.DRAFT)

        assert detail(api, org.owner, template).status_code == 404

    def test_a_private_event_shows_to_the_invited_only(self, api):
        event = make_event(visibility=Event.Visibility.PRIVATE)
        guest = make_user()
        invite(event, guest)

        assert detail(api, guest, event).status_code == 200
        assert detail(api, make_user(), event).status_code == 404

    def test_a_blacklisted_user_gets_404(self, api, user):
        event = make_event()
        blacklist(event.organization, user=user)

        response = detail(api, user, event)

        assert response.status_code == 404
        assert response.json()["code"] == "not_found"

    def test_hidden_numbers_are_null_for_the_public_and_shown_to_staff(self, api):
        org = make_org()
        event = make_event(
            org,
            max_attendees=7,
            visibility_settings={"show_capacity": False, "show_attendee_count": False},
        )
        fill_with_rsvps(event, 2)

        public = detail(api, None, event).json()
        staff = detail(api, make_staff(org), event).json()

        hidden = ("max_attendees", "effective_capacity", "seats_held", "attendee_count")
        assert [public[key] for key in hidden] == [None, None, None, None]
        assert [staff[key] for key in hidden] == [7, 7, 0, 2]
        assert public["visibility_settings"] == {
            "show_capacity": False,
            "show_attendee_count": False,
        }

    def test_an_unknown_id_is_404_and_a_malformed_one_422(self, api):
        assert api(None).get("/events/00000000-0000-0000-0000-000000000000").status_code == 404
        assert api(None).get("/events/not-a-uuid").status_code == 422

    def test_a_bad_token_is_401_even_on_a_public_route(self, api):
        event = make_event()
        client = api(None)
        client.headers["Authorization"] = "Bearer not-a-token"

        assert client.get(f"/events/{event.pk}").status_code == 401


def my_status(api, user, event):
    return api(user).get(f"/events/{event.pk}/my-status")


class TestMyStatus:
    def test_a_newcomer_may_register(self, api, user):
        event = make_event(max_attendees=3)

        body = my_status(api, user, event).json()

        assert body["eligibility"]["allowed"] is True
        assert body["eligibility"]["event_id"] == str(event.pk)
        assert (body["rsvp"], body["tickets"], body["waitlist"], body["offer"]) == (
            None,
            [],
            None,
            None,
        )

    def test_the_rsvp_answer_is_shown(self, api, user):
        event = make_event()
        api(user).post(f"/events/{event.pk}/rsvp/maybe")

        assert my_status(api, user, event).json()["rsvp"] == {"status": "maybe"}

    def test_the_callers_tickets_are_listed_cancelled_ones_included(self, api, user):
        event = make_event(requires_ticket=True)
        tier = make_tier(event, name="Standing")
        live = Ticket.objects.create(event=event, tier=tier, user=user, holder_name="Ann")
        gone = Ticket.objects.create(
            event=event, tier=tier, user=user, status=Ticket.Status.CANCELLED
        )
        Ticket.objects.create(event=event, tier=tier, user=make_user())

        tickets = my_status(api, user, event).json()["tickets"]

        assert [(t["id"], t["status"]) for t in tickets] == [
            (str(live.pk), "active"),
            (str(gone.pk), "cancelled"),
        ]
        assert tickets[0]["tier_name"] == "Standing"
        assert tickets[0]["holder_name"] == "Ann"

    def test_a_full_event_tells_the_queued_caller_their_place(self, api, user):
        event = make_event(max_attendees=1, waitlist_open=True)
        fill_with_rsvps(event, 1)
        queue(event, make_user(), make_user(), user)

        body = my_status(api, user, event).json()

        assert body["eligibility"]["reason_code"] == "event_is_full"
        assert body["eligibility"]["waitlist_position"] == 3
        assert body["waitlist"]["position"] == 3

    def test_anonymous_is_401(self, api):
        assert my_status(api, None, make_event()).status_code == 401

    def test_an_invisible_event_is_404(self, api, user):
        assert my_status(api, user, make_event(status=Event.Status.DRAFT)).status_code == 404

    def test_a_blacklisted_user_is_told_why_on_a_public_event(self, api, user):
        """The event page is hidden (404) but the participation routes say `blacklisted`."""
        event = make_event()
        blacklist(event.organization, user=user)

        body = my_status(api, user, event).json()

        assert body["eligibility"]["reason_code"] == "blacklisted"

    def test_a_blacklisted_user_still_gets_404_for_a_non_public_event(self, api, user):
        event = make_event(visibility=Event.Visibility.MEMBERS_ONLY)
        blacklist(event.organization, user=user)

        assert my_status(api, user, event).status_code == 404
        assert api(user).post(f"/events/{event.pk}/rsvp/yes").status_code == 404


class TestMyStatusQueryCount:
    @pytest.mark.parametrize(("requires_ticket", "expected"), [(False, 5), (True, 6)])
    def test_my_status_costs_a_fixed_number_of_queries(
        self, api, django_assert_num_queries, requires_ticket, expected
    ):
        """JWT user, event, eligibility context (+ tiers), tickets, queue entry."""
        org = make_org()
        venue = Venue.objects.create(organization=org, name="Hall", capacity=100)
        event = make_event(
            org, venue=venue, max_attendees=30, waitlist_open=True, requires_ticket=requires_ticket
        )
        user = make_user()
        client = api(user)
        if requires_ticket:
            tier = make_tier(event, total_quantity=30)
            make_tier(event)
        else:
            tier = None

        with django_assert_num_queries(expected):
            client.get(f"/events/{event.pk}/my-status")

        if tier is not None:
            fill_with_tickets(event, tier, 30)
            Ticket.objects.create(event=event, tier=tier, user=user)
        else:
            fill_with_rsvps(event, 30)
            EventRSVP.objects.create(event=event, user=user, status="no")
        queue(event, *[make_user() for _ in range(10)], user)

        with django_assert_num_queries(expected):
            response = client.get(f"/events/{event.pk}/my-status")

        assert response.json()["waitlist"]["position"] == 11
