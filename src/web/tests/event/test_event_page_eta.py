"""The event page tells a waiting viewer when an offer could come (docs/spec/ui.md, "on the
waitlist, waiting"): the honest ETA of my-status in words, in the viewer's zone, or why
no time can be given."""

from datetime import UTC, datetime

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.models import EventWaitList
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.event.support import status_region, text_of

pytestmark = pytest.mark.django_db


def test_the_latest_time_comes_in_the_viewers_zone(client: Client) -> None:
    event = active_event(2, attendees=1, timezone="UTC")
    holder, me = queue_in_order(event, 2)
    give_offer(event, holder, expires_at=datetime(2031, 5, 1, 14, 0, tzinfo=UTC))
    me.timezone = "Europe/Berlin"
    me.save(update_fields=["timezone"])
    client.force_login(me)

    text = text_of(status_region(client, event))

    assert "If everyone ahead of you passes, your offer comes by Thu 1 May 2031, 16:00" in text


def test_a_full_event_says_it_depends_on_cancellations(client: Client) -> None:
    event = active_event(2, attendees=2)
    [me] = queue_in_order(event, 1)
    client.force_login(me)

    text = text_of(status_region(client, event))

    assert "When you get an offer depends on cancellations." in text
    assert "your offer comes by" not in text


def test_a_party_too_large_for_the_seats_says_so(client: Client) -> None:
    event = active_event(3, attendees=1, waitlist_max_party_size=4)
    me = make_user()
    EventWaitList.objects.create(event=event, user=me, party_size=3)
    client.force_login(me)

    text = text_of(status_region(client, event))

    assert "Your party is larger than the seats in play" in text


def test_an_offer_holder_sees_no_eta(client: Client) -> None:
    event = active_event(2, attendees=1)
    [me] = queue_in_order(event, 1)
    give_offer(event, me, expires_at=datetime(2031, 5, 1, 14, 0, tzinfo=UTC))
    client.force_login(me)

    text = text_of(status_region(client, event))

    assert "A seat is held for you until" in text
    assert "your offer comes by" not in text and "depends on cancellations" not in text
