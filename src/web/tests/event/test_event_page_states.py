"""`/events/{id}` says the states docs/spec/ui.md names: "You are in the draw" on a lottery
waitlist, when a cutoff's final round goes out, "Part of" its series for an occurrence,
"Changed" for a modified date, and a cancelled event offers nothing to register for and
no calendar."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, make_event, make_org, make_tier
from events.models import Event, EventRSVP, EventWaitList, Organization
from events.series.tests.recurrence_builders import make_series
from events.waitlist.tests.waitlist_builders import START, active_event, queue_in_order
from web.tests.event.support import event_path, has_button, page_body, region_of, text_of

pytestmark = pytest.mark.django_db

REGISTRATION = ("Attend", "Get tickets", "Join the waitlist", "Claim my seat")


def waiting_viewer(client: Client, **fields: Any) -> tuple[Event, User]:
    """A full event with the active waitlist on; the viewer third in line."""
    event = active_event(2, attendees=2, **fields)
    *_, viewer = queue_in_order(event, 3)
    client.force_login(viewer)
    return event, viewer


class TestLottery:
    def test_a_lottery_waitlist_says_you_are_in_the_draw_not_a_number(self, client: Client) -> None:
        event, _ = waiting_viewer(client, waitlist_lottery_mode=True, waitlist_batch_size=1)
        region = text_of(region_of(page_body(client, event)))
        assert "You are in the draw." in region
        assert "You are number" not in region

    def test_a_first_come_waitlist_still_gives_the_number(self, client: Client) -> None:
        event, _ = waiting_viewer(client)
        assert "You are number 3 on the waitlist." in text_of(page_body(client, event))

    def test_the_polled_region_says_it_too(self, client: Client) -> None:
        event, _ = waiting_viewer(client, waitlist_lottery_mode=True, waitlist_batch_size=1)
        response = client.get(event_path(event) + "/status")
        assert "You are in the draw." in text_of(response.content.decode())


class TestCutoff:
    def test_a_waiting_member_is_told_when_the_final_round_goes_out(self, client: Client) -> None:
        cutoff = START - timedelta(days=1)
        event, viewer = waiting_viewer(client, waitlist_cutoff_date=cutoff, timezone="UTC")
        viewer.timezone = "UTC"
        viewer.save(update_fields=["timezone"])
        region = text_of(region_of(page_body(client, event)))
        said = f"The final round of offers goes out at {cutoff:%a} {cutoff.day} {cutoff:%b %Y}"
        assert said in region
        assert "everyone still waiting gets an offer" in region

    def test_after_the_cutoff_it_says_the_final_round_went_out(self, client: Client) -> None:
        cutoff = timezone.now() - timedelta(hours=1)
        event, _ = waiting_viewer(client, waitlist_cutoff_date=cutoff)
        region = text_of(region_of(page_body(client, event)))
        assert "The final round of offers went out at" in region
        assert "goes to whoever claims it first" in region

    def test_someone_who_may_still_join_sees_the_cutoff_too(self, client: Client) -> None:
        event = active_event(
            1, attendees=1, waitlist_cutoff_date=timezone.now() + timedelta(days=1)
        )
        client.force_login(make_user())
        region = region_of(page_body(client, event))
        assert has_button(region, "Join the waitlist")
        assert "The final round of offers goes out at" in text_of(region)

    def test_no_cutoff_no_sentence(self, client: Client) -> None:
        event, _ = waiting_viewer(client)
        assert "final round" not in page_body(client, event)


class TestSeries:
    def test_an_occurrence_links_to_its_public_series_page(self, client: Client) -> None:
        organization = make_org(slug="tango-club")
        series = make_series(organization, name="Tuesday Milonga", slug="tuesday-milonga")
        event = make_event(organization, event_series=series)
        body = page_body(client, event)
        assert (
            'Part of <a href="/events/tango-club/series/tuesday-milonga">Tuesday Milonga</a>'
            in body
        )
        assert "Changed" not in body

    def test_a_modified_occurrence_says_changed(self, client: Client) -> None:
        organization = make_org()
        event = make_event(organization, event_series=make_series(organization), is_modified=True)
        assert "<strong>Changed</strong>" in page_body(client, event)

    def test_an_event_outside_a_series_has_no_series_line(self, client: Client) -> None:
        body = page_body(client, make_event())
        assert "Part of" not in body and "Changed" not in body


def cancelled_event(**fields: Any) -> Event:
    return make_event(status=Event.Status.CANCELLED, max_attendees=10, **fields)


class TestCancelled:
    @pytest.mark.parametrize("ticketed", [False, True], ids=["rsvp", "ticketed"])
    def test_a_visitor_gets_no_registration_no_log_in_and_no_calendar(
        self, client: Client, ticketed: bool
    ) -> None:
        event = cancelled_event(requires_ticket=ticketed)
        if ticketed:
            make_tier(event, total_quantity=10)
        body = page_body(client, event)
        region = region_of(body)
        assert "This event is cancelled." in text_of(region)
        assert "Log in to attend" not in body
        assert "Add to calendar" not in body and "calendar.ics" not in body
        assert not any(has_button(region, name) for name in REGISTRATION)

    def test_a_signed_in_viewer_on_a_full_cancelled_event_gets_no_waitlist(
        self, client: Client
    ) -> None:
        event = cancelled_event(waitlist_open=True)
        fill_with_rsvps(event, 10)
        client.force_login(make_user())
        region = region_of(page_body(client, event))
        assert not any(has_button(region, name) for name in REGISTRATION)
        assert "This event is cancelled." in text_of(region)

    def test_a_former_attendee_and_a_queued_member_are_offered_nothing(
        self, client: Client
    ) -> None:
        event = cancelled_event()
        attendee, member = make_user(), make_user()
        EventRSVP.objects.create(event=event, user=attendee, status=EventRSVP.Status.YES)
        EventWaitList.objects.create(event=event, user=member)
        for viewer in (attendee, member):
            client.force_login(viewer)
            region = region_of(page_body(client, event))
            assert "<button" not in region
            assert "This event is cancelled." in text_of(region)

    def test_an_open_event_still_offers_the_calendar(self, client: Client) -> None:
        assert "Add to calendar" in page_body(client, make_event())


def queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


@pytest.mark.parametrize(
    "build",
    [
        make_event,
        lambda organization: make_event(organization, event_series=make_series(organization)),
    ],
    ids=["single", "occurrence"],
)
def test_the_series_line_costs_one_query_at_most(
    client: Client, build: Callable[[Organization], Event]
) -> None:
    organization = make_org()
    event = build(organization)
    client.force_login(make_user())
    # session, user, event, eligibility context, tickets/RSVP, queue entry (+ the series)
    assert queries(client, event_path(event)) <= 7 + (event.event_series_id is not None)


def test_a_german_viewer_reads_the_draw_and_the_series_in_german(client: Client) -> None:
    organization = make_org()
    series = make_series(organization, name="Dienstagsmilonga")
    event = active_event(
        2,
        attendees=2,
        organization=organization,
        event_series=series,
        is_modified=True,
        waitlist_lottery_mode=True,
        waitlist_batch_size=1,
    )
    *_, viewer = queue_in_order(event, 1)
    viewer.language = "de"
    viewer.save(update_fields=["language"])
    client.force_login(viewer)
    text = text_of(page_body(client, event))
    assert "Du bist in der Verlosung." in text
    assert "Teil von Dienstagsmilonga" in text and "Geändert" in text
