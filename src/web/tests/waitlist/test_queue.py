"""The queue table: selection order and positions as the admin API's queue list says
(FIFO, rotation, live offers; lottery mode changes who is drawn, not the list), and
pages of 50 with a "Next page" link."""

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from events.models import Event, EventWaitList
from web.tests.waitlist.support import active_event, offer, queue, url

pytestmark = pytest.mark.django_db

ROW = re.compile(
    r'<tr id="entry-[^"]+">\s*<td[^>]*>(?P<position>[^<]+)</td>.*?'
    r'<span class="person-email">(?P<email>[^<]+)</span>',
    re.S,
)


def _page_rows(client: Client, event: Event, query: str = "") -> list[tuple[str, str]]:
    body = client.get(url(event, query)).content.decode()
    return [(m["email"], m["position"].strip()) for m in ROW.finditer(body)]


def _api_rows(api: Any, event: Event) -> list[tuple[str, str]]:
    results = (
        api(event.organization.owner)
        .get(f"/event-admin/{event.pk}/waitlist", page_size=100)
        .json()["results"]
    )
    return [(r["user"]["email"], str(r["position"] or "—")) for r in results]


@pytest.mark.parametrize("lottery", [False, True], ids=["fifo", "lottery"])
def test_the_queue_is_in_the_apis_selection_order_with_its_positions(
    client: Client, api: Any, lottery: bool
) -> None:
    event = active_event(waitlist_batch_size=2, waitlist_lottery_mode=lottery)
    entries = queue(event, 6)
    # The 2nd holds a live offer (no position); the 1st let one lapse (rotated to the end).
    offer(event, entries[1].user)
    offer(event, entries[0].user, status="expired", expires_at=timezone.now())
    EventWaitList.objects.filter(pk=entries[0].pk).update(last_offer_expired_at=timezone.now())
    client.force_login(event.organization.owner)
    rows = _page_rows(client, event)
    emails = [e.user.email for e in entries]
    assert rows == [
        (emails[1], "—"),
        (emails[2], "1"),
        (emails[3], "2"),
        (emails[4], "3"),
        (emails[5], "4"),
        (emails[0], "5"),
    ]
    assert rows == _api_rows(api, event)


def test_a_live_offer_shows_its_deadline_in_the_queue_row(client: Client) -> None:
    event = active_event()
    holder = queue(event, 1)[0].user
    offer(event, holder, expires_at=timezone.now() + timedelta(hours=2))
    client.force_login(event.organization.owner)
    body = client.get(url(event)).content.decode()
    row = body[body.index(holder.email) :]
    assert "Seat held until" in row[: row.index("</tr>")]


def test_only_members_without_a_live_offer_can_be_offered_a_seat(client: Client) -> None:
    """A second offer would be refused (409 pending_offer_exists): no button for it."""
    event = active_event()
    holder, waiting = (entry.user for entry in queue(event, 2))
    offer(event, holder, expires_at=timezone.now() + timedelta(hours=2))
    client.force_login(event.organization.owner)
    body = client.get(url(event)).content.decode()

    def row_of(email: str) -> str:
        row = body[body.index(email) :]
        return row[: row.index("</tr>")]

    assert "Offer a seat" not in row_of(holder.email)
    assert "Offer a seat" in row_of(waiting.email)
    assert "Remove" in row_of(holder.email)


def test_the_queue_comes_in_pages_of_50_with_a_next_page_link(client: Client, api: Any) -> None:
    event = active_event()
    entries = queue(event, 53)
    offer(event, entries[10].user)  # a live holder before page 2: positions still count on
    client.force_login(event.organization.owner)
    body = client.get(url(event)).content.decode()
    assert "53 people waiting" in body
    first = _page_rows(client, event)
    assert len(first) == 50
    assert '<a href="?queue_page=2&amp;offers_page=1">Next page</a>' in body
    second = _page_rows(client, event, "?queue_page=2")
    assert [email for email, _ in second] == [e.user.email for e in entries[50:]]
    assert [position for _, position in second] == ["50", "51", "52"]
    assert first + second == _api_rows(api, event)
    assert "Next page" not in client.get(url(event, "?queue_page=2")).content.decode()


def test_offers_show_the_person_status_and_deadline_in_the_event_s_zone(client: Client) -> None:
    event = active_event(timezone="America/New_York")
    owner = event.organization.owner
    owner.timezone = "Asia/Tokyo"
    owner.save()
    deadline = (timezone.now() + timedelta(hours=1)).replace(microsecond=0)
    held = offer(event, expires_at=deadline)
    held.user.first_name = "Noor"
    held.user.save()
    client.force_login(owner)
    body = client.get(url(event)).content.decode()
    offers = body[body.index('id="waitlist-offers-heading"') :]
    row = offers[offers.index("Noor") : offers.index("</tr>", offers.index("Noor"))]
    assert held.user.email in row and "Pending" in row
    assert f'<time datetime="{deadline.isoformat()}">' in row
    assert ("EST" in row or "EDT" in row) and "JST" not in row  # the event's, not the viewer's
