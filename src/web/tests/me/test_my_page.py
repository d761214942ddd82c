"""`/me`: the signed-in attendee's upcoming RSVPs, tickets and waitlist places."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event
from web.tests.me.support import full_week, live_offer, queue, rsvp, signed_in_client, ticket

pytestmark = pytest.mark.django_db


def test_anonymous_visitors_go_to_the_log_in_page_first(client: Client) -> None:
    response = client.get("/me")
    assert response.status_code == 302
    assert response["Location"] == "/login?next=%2Fme"


def test_the_page_lists_rsvps_tickets_and_queue_places_with_links() -> None:
    user = make_user(timezone="Europe/Berlin")
    picnic = make_event(name="Summer picnic")
    rsvp(picnic, user)
    gala = make_event(name="Winter gala", requires_ticket=True)
    ticket(gala, user)
    concert = make_event(name="Late concert", waitlist_open=True, max_attendees=1)
    queue(concert, make_user(), minutes_ago=10)
    queue(concert, user, minutes_ago=5)

    body = signed_in_client(user).get("/me").content.decode()

    assert f'<a href="/events/{picnic.pk}">Summer picnic</a>' in body
    assert "You are attending" in body
    assert f'<a href="/events/{gala.pk}">Winter gala</a>' in body
    assert "Standard · Valid" in body
    assert f'<a href="/events/{concert.pk}">Late concert</a>' in body
    assert "You are number 2 on the waitlist" in body


def test_a_lottery_queue_place_says_in_the_draw_not_a_number() -> None:
    user = make_user()
    draw = make_event(
        name="Raffle night", waitlist_open=True, max_attendees=1, waitlist_lottery_mode=True
    )
    queue(draw, make_user(), minutes_ago=10)
    queue(draw, user, minutes_ago=5)

    body = signed_in_client(user).get("/me").content.decode()

    assert "You are in the draw." in body
    assert "on the waitlist" not in body.split("Raffle night", 1)[1]


def test_a_live_offer_shows_its_deadline_and_a_countdown_timer() -> None:
    user = make_user(timezone="Europe/Berlin")
    opera = make_event(name="Opera night", waitlist_open=True, max_attendees=1)
    queue(opera, user)
    offer = live_offer(opera, user, minutes=23)

    body = signed_in_client(user).get("/me").content.decode()

    assert "A seat is held for you until" in body
    assert f'<time datetime="{offer.expires_at.isoformat()}">' in body
    assert 'role="timer"' in body
    assert "in 23 minutes" in body
    assert "on the waitlist" not in body  # no position while the seat is held


def test_ended_events_and_other_peoples_rows_are_not_listed() -> None:
    user, other = make_user(), make_user()
    past = make_event(
        name="Last year",
        start=timezone.now() - timedelta(days=3),
        end=timezone.now() - timedelta(days=2),
    )
    rsvp(past, user)
    rsvp(make_event(name="Someone else's party"), other)

    body = signed_in_client(user).get("/me").content.decode()

    assert "Last year" not in body
    assert "Someone else" not in body
    assert "No upcoming RSVPs." in body


def test_the_page_costs_the_same_queries_for_one_or_many_events(
    django_assert_num_queries,
) -> None:
    one, many = full_week(count=1), full_week(count=6)
    client_one, client_many = signed_in_client(one), signed_in_client(many)

    # session, user, RSVPs, tickets, queue places and their live offers (one prefetch)
    with django_assert_num_queries(6):
        assert client_one.get("/me").status_code == 200
    with django_assert_num_queries(6):
        body = client_many.get("/me").content.decode()
    assert body.count('role="timer"') == 6
