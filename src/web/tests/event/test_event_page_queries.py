"""The event page and its polled region cost a small fixed number of queries, however
many attendees, queue members, offers and tiers the event has."""

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_tickets, make_tier
from events.models import Event, Ticket
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.event.support import event_path

pytestmark = pytest.mark.django_db

#: Session and user, the event with its tiers, the eligibility context (plus the tiers it
#: checks on ticketed events), the viewer's tickets, the queue entry: 7, or 8 when ticketed.
PAGE_BUDGET = 8


def queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def rsvp_event(size: int) -> tuple[Event, User]:
    """Full, `size` attendees, `size` live offers, `size` waiting before the viewer."""
    event = active_event(size * 2, attendees=size)
    holders = queue_in_order(event, size)
    for holder in holders:
        give_offer(event, holder, expires_at=timezone.now() + timedelta(hours=1))
    *_, viewer = queue_in_order(event, size + 1)
    return event, viewer


def ticketed_event(size: int) -> tuple[Event, User]:
    """`size` tiers, `size` tickets sold in each; the viewer holds one ticket of each."""
    event = active_event(1000, requires_ticket=True)
    viewer = make_user()
    for _ in range(size):
        tier = make_tier(event, total_quantity=100)
        fill_with_tickets(event, tier, size)
        Ticket.objects.create(event=event, tier=tier, user=viewer)
    return event, viewer


@pytest.mark.parametrize("build", [rsvp_event, ticketed_event], ids=["waitlisted", "ticketed"])
@pytest.mark.parametrize("path", ["", "/status"], ids=["page", "partial"])
def test_the_page_costs_the_same_queries_for_a_small_or_a_big_event(
    client: Client, build: Callable[[int], tuple[Event, User]], path: str
) -> None:
    small, small_viewer = build(1)
    client.force_login(small_viewer)
    few = queries(client, event_path(small) + path)
    big, big_viewer = build(12)
    client.force_login(big_viewer)
    many = queries(client, event_path(big) + path)
    assert few == many
    assert many <= PAGE_BUDGET


def test_an_anonymous_visitor_costs_even_fewer(client: Client) -> None:
    small, _ = rsvp_event(1)
    few = queries(client, event_path(small))
    big, _ = rsvp_event(12)
    assert queries(client, event_path(big)) == few <= 2  # the event and its tiers
