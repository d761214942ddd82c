"""`/events/{id}`: the event's facts, the "Your status" region in each situation of docs/spec/ui.md,
anonymous visitors, 404 for what the viewer may not see, and the polled partial."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_member,
    make_org,
    make_tier,
)
from events.models import Event, EventRSVP, Organization, Ticket, TicketTier, Venue
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.event.support import (
    event_path,
    has_button,
    page_body,
    region_of,
    status_region,
    text_of,
)

pytestmark = pytest.mark.django_db

START = datetime(2031, 3, 4, 18, 0, tzinfo=UTC)


def test_the_page_shows_name_times_in_the_events_zone_venue_organiser_and_seats(
    client: Client,
) -> None:
    organization = make_org(name="Tango Berlin")
    venue = Venue.objects.create(
        organization=organization, name="Kesselhaus", address="Knaackstr. 97"
    )
    event = make_event(
        organization,
        name="Milonga night",
        start=START,
        end=START + timedelta(hours=4),
        timezone="Europe/Berlin",
        venue=venue,
        max_attendees=50,
    )
    fill_with_rsvps(event, 3)
    body = page_body(client, event)
    text = text_of(body)
    assert "<h1>Milonga night</h1>" in body
    assert "Tue 4 Mar 2031, 19:00 CET" in text  # 18:00 UTC in Berlin
    assert "Tue 4 Mar 2031, 23:00 CET" in text
    assert "Kesselhaus, Knaackstr. 97" in text
    assert "Tango Berlin" in text
    assert "Capacity: 50" in text and "Taken: 3" in text and "0 held for the waitlist" in text
    assert f'<a href="/events/{event.pk}/calendar.ics">Add to calendar</a>' in body


def test_a_signed_in_viewer_reads_the_times_in_their_own_zone(client: Client) -> None:
    event = make_event(start=START, end=START + timedelta(hours=1), timezone="Europe/Berlin")
    client.force_login(make_user(timezone="America/New_York"))
    assert "Tue 4 Mar 2031, 13:00 EST" in text_of(page_body(client, event))


def test_held_seats_count_and_hidden_numbers_follow_the_apis_visibility_settings(
    client: Client,
) -> None:
    event = active_event(10, attendees=9)
    [member] = queue_in_order(event, 1)
    give_offer(event, member)
    assert "1 held for the waitlist" in text_of(page_body(client, event))

    Event.objects.filter(pk=event.pk).update(
        visibility_settings={"show_capacity": False, "show_attendee_count": False}
    )
    text = text_of(page_body(client, event))
    assert "Capacity" not in text and "Taken" not in text and "held for the waitlist" not in text
    client.force_login(event.organization.owner)  # the organiser sees them
    text = text_of(page_body(client, event))
    assert "Capacity: 10" in text and "Taken: 9" in text and "1 held for the waitlist" in text


def test_an_anonymous_visitor_gets_a_log_in_link_back_to_this_page(client: Client) -> None:
    event = make_event()
    region = status_region(client, event)
    assert 'role="status"' in region and 'aria-label="Your status"' in region
    assert f'href="/login?next=/events/{event.pk}">Log in to attend</a>' in region
    assert "<button" not in region
    assert "hx-get" not in region  # nothing to refresh for a visitor: no polling


def test_may_register_on_an_rsvp_event_offers_attend(client: Client) -> None:
    event = make_event(max_attendees=10)
    client.force_login(make_user())
    region = status_region(client, event)
    assert has_button(region, "Attend")
    assert f'action="/events/{event.pk}/attend"' in region


def test_may_register_on_a_ticketed_event_lists_tiers_with_price_and_what_is_left(
    client: Client,
) -> None:
    event = make_event(requires_ticket=True, max_attendees=100)
    make_tier(event, name="Early bird", price=Decimal("12.50"), total_quantity=20)
    make_tier(event, name="Supporter", price=Decimal("0"))
    make_tier(event, name="Closed", sales_end_at=timezone.now() - timedelta(days=1))
    client.force_login(make_user())
    text = text_of(status_region(client, event))
    assert "Early bird : 12.50 EUR · 20 left" in text
    assert "Supporter : Free · no limit" in text
    assert "Closed" not in text
    assert has_button(status_region(client, event), "Get tickets")


def test_attending_by_rsvp_offers_cancel_my_rsvp(client: Client) -> None:
    event = make_event(max_attendees=10)
    [user] = fill_with_rsvps(event, 1)
    client.force_login(user)
    region = status_region(client, event)
    assert "You are attending" in region
    assert has_button(region, "Cancel my RSVP")
    assert not has_button(region, "Attend")


def test_attending_with_tickets_offers_cancel_ticket_per_ticket(client: Client) -> None:
    event = make_event(requires_ticket=True, max_attendees=10, max_tickets_per_user=2)
    tier = make_tier(event, name="Standard", payment_method=TicketTier.PaymentMethod.FREE)
    user = make_user()
    Ticket.objects.bulk_create(
        [Ticket(event=event, tier=tier, user=user, holder_name=name) for name in ("Ada", "Bob")]
    )
    client.force_login(user)
    region = status_region(client, event)
    assert "You are attending" in region
    assert region.count(">Cancel ticket</button>") == 2
    assert "Standard · Ada" in text_of(region) and "Standard · Bob" in text_of(region)


def test_full_with_an_open_waitlist_offers_join(client: Client) -> None:
    event = active_event(2, attendees=2)
    client.force_login(make_user())
    region = status_region(client, event)
    assert "This event is full" in region
    assert has_button(region, "Join the waitlist")
    assert not has_button(region, "Attend")


def test_full_with_a_closed_waitlist_says_full_and_offers_nothing(client: Client) -> None:
    event = make_event(max_attendees=1)
    fill_with_rsvps(event, 1)
    client.force_login(make_user())
    region = status_region(client, event)
    assert "This event is full" in region
    assert "<button" not in region


def test_seats_held_for_others_say_so_with_the_next_batch_time(client: Client) -> None:
    event = active_event(2, attendees=1, timezone="UTC")
    [member] = queue_in_order(event, 1)
    give_offer(event, member, expires_at=datetime(2031, 5, 1, 14, 0, tzinfo=UTC))
    client.force_login(make_user(timezone="UTC"))
    region = status_region(client, event)
    text = text_of(region)
    assert "Spots are currently reserved for waitlist members" in text
    assert "The next batch of offers goes out by Thu 1 May 2031, 14:00 UTC" in text
    assert has_button(region, "Join the waitlist")


def test_a_queued_viewer_sees_their_number_and_leave(client: Client) -> None:
    event = active_event(1, attendees=1)
    _, _, me = queue_in_order(event, 3)
    client.force_login(me)
    region = status_region(client, event)
    assert "You are number 3 on the waitlist" in region
    assert has_button(region, "Leave the waitlist")
    assert not has_button(region, "Join the waitlist")


def test_a_queued_viewer_learns_when_the_next_batch_goes_out(client: Client) -> None:
    event = active_event(2, attendees=1, timezone="UTC")
    holder, me = queue_in_order(event, 2)
    give_offer(event, holder, expires_at=datetime(2031, 5, 1, 14, 0, tzinfo=UTC))
    client.force_login(me)
    text = text_of(status_region(client, event))
    assert "You are number 1 on the waitlist" in text
    assert "The next batch of offers goes out by Thu 1 May 2031, 14:00" in text


def test_holding_an_offer_shows_the_deadline_a_timer_claim_and_leave(client: Client) -> None:
    event = active_event(2, attendees=1, timezone="UTC")
    [me] = queue_in_order(event, 1)
    expires = timezone.now() + timedelta(minutes=30)
    give_offer(event, me, expires_at=expires)
    client.force_login(me)
    region = status_region(client, event)
    assert "A seat is held for you until" in region
    assert f'<time datetime="{expires.isoformat()}">' in region
    assert 'role="timer"' in region
    assert "(in 29 minutes)" in text_of(region)  # human phrasing beside the deadline
    assert "0:29:5" in text_of(region) or "0:30:00" in text_of(region)
    assert has_button(region, "Claim my seat") and has_button(region, "Leave the waitlist")
    assert f'action="/events/{event.pk}/claim"' in region
    # Issue 12: "Decline the offer" (stay queued) beside them.
    assert has_button(region, "Decline the offer")


def test_claim_on_a_ticketed_event_leads_to_the_checkout(client: Client) -> None:
    event = active_event(2, attendees=0, requires_ticket=True)
    make_tier(event, total_quantity=2)
    [me] = queue_in_order(event, 1)
    give_offer(event, me)
    client.force_login(me)
    region = status_region(client, event)
    assert f'<form method="get" action="/events/{event.pk}/checkout">' in region
    assert has_button(region, "Claim my seat")


def test_another_refusal_shows_the_reason_and_its_next_step(client: Client) -> None:
    organization = make_org()
    event = make_event(organization, event_type=Event.EventType.MEMBERS_ONLY)
    client.force_login(make_user())
    text = text_of(status_region(client, event))
    assert "Only members of the organisation can take part in this event." in text
    assert f"Ask {organization.name} to make you a member." in text

    finished = make_event(start=START - timedelta(days=4000), end=START - timedelta(days=3999))
    region = status_region(client, finished)
    assert "This event has already finished." in region
    assert "<button" not in region


@pytest.mark.parametrize(
    ("status", "says"),
    [
        (Event.Status.CLOSED, "Registration for this event is closed."),
        (Event.Status.CANCELLED, "This event is cancelled."),
    ],
)
def test_a_closed_or_cancelled_event_says_so_not_that_it_opens_later(
    client: Client, status: str, says: str
) -> None:
    event = make_event(status=status)
    client.force_login(make_user())
    region = status_region(client, event)
    assert says in text_of(region)
    assert "not open yet" not in region and "<button" not in region


def test_an_invisible_event_is_a_404_like_the_api(client: Client) -> None:
    draft = make_event(status=Event.Status.DRAFT)
    private_org = make_org(visibility=Organization.Visibility.PRIVATE)
    hidden = make_event(private_org)
    members_only = make_event(visibility=Event.Visibility.MEMBERS_ONLY)
    client.force_login(make_user())
    for event in (draft, hidden, members_only):
        assert client.get(event_path(event)).status_code == 404
        assert client.get(f"{event_path(event)}/status").status_code == 404
    assert client.get("/events/00000000-0000-0000-0000-000000000000").status_code == 404
    # What the organisation's members may see, they see.
    client.force_login(make_member(members_only.organization))
    assert client.get(event_path(members_only)).status_code == 200


def test_the_status_partial_renders_only_the_region_with_its_state(client: Client) -> None:
    event = active_event(1, attendees=1)
    [me] = queue_in_order(event, 1)
    client.force_login(me)
    page = page_body(client, event)
    response = client.get(f"{event_path(event)}/status")
    assert response.status_code == 200
    partial = response.content.decode()
    assert partial.lstrip().startswith('<section id="your-status"')
    assert "<h1>" not in partial and "<html" not in partial
    assert "You are number 1 on the waitlist" in region_of(partial)
    assert f'hx-get="/events/{event.pk}/status"' in region_of(page)
    assert 'hx-trigger="every 5s"' in region_of(page)
    state = response["X-Encore-State"]
    assert f'data-state="{state}"' in partial and f'data-state="{state}"' in page
    # A change of situation changes the state the poller compares.
    EventRSVP.objects.create(event=event, user=make_user(), status=EventRSVP.Status.NO)
    assert client.get(f"{event_path(event)}/status")["X-Encore-State"] == state
    give_offer(event, me, expires_at=timezone.now() + timedelta(hours=1))
    changed = client.get(f"{event_path(event)}/status")
    assert changed["X-Encore-State"] != state
    assert "A seat is held for you until" in changed.content.decode()


def test_the_countdown_script_is_served_with_the_page(client: Client) -> None:
    body = page_body(client, make_event())
    assert '<script src="/static/web/event.js" defer></script>' in body


def test_a_german_viewer_gets_html_lang_de(client: Client) -> None:
    event = make_event()
    client.force_login(make_user(language="de"))
    body = page_body(client, event)
    assert '<html lang="de">' in body


def test_sold_out_ticketed_event_offers_the_waitlist(client: Client) -> None:
    event = make_event(requires_ticket=True, max_attendees=10, waitlist_open=True)
    tier = make_tier(event, total_quantity=1)
    fill_with_tickets(event, tier, 1)
    client.force_login(make_user())
    region = status_region(client, event)
    assert "Tickets for this event are sold out." in region
    assert has_button(region, "Join the waitlist")
