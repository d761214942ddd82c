"""The row buttons change the database as the admin API routes do, and a refusal (409:
no free seat, a live offer already held …) is shown in its row with nothing changed."""

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import fill_with_rsvps
from events.models import Event, EventWaitList, WaitlistOffer
from notifications.models import Notification
from web.tests.waitlist.support import WINDOW, Status, active_event, offer, queue, url

pytestmark = pytest.mark.django_db


def _everything() -> list[Any]:
    return [
        *snapshot(),
        list(WaitlistOffer.objects.order_by("pk").values()),
        list(Notification.objects.order_by("pk").values()),
    ]


def _owner_client(client: Client, event: Event) -> Client:
    client.force_login(event.organization.owner)
    return client


def _row(body: str, email: str) -> str:
    start = body.index(email)
    return body[start : body.index("</tr>", start)]


def _offers_table(body: str) -> str:
    return body[body.index('id="waitlist-offers-heading"') :]


def test_offer_a_seat_creates_a_pending_offer_for_the_window(client: Client) -> None:
    event = active_event()
    entry = queue(event, 1)[0]
    before = timezone.now()
    response = _owner_client(client, event).post(url(event, f"/entries/{entry.pk}/offer"))
    assert response.status_code == 302 and response["Location"] == url(event)
    made = WaitlistOffer.objects.get(event=event, user=entry.user)
    assert made.status == Status.PENDING and not made.is_cutoff_batch
    assert before + WINDOW <= made.expires_at <= timezone.now() + WINDOW
    body = client.get(url(event)).content.decode()
    assert "Seat held until" in _row(body, entry.user.email)


def test_offer_a_seat_on_a_passive_waitlist_takes_the_offer_until_field(client: Client) -> None:
    event = active_event(waitlist_time_window=None)
    entry = queue(event, 1)[0]
    client = _owner_client(client, event)
    assert 'name="expires_at"' in client.get(url(event)).content.decode()
    refused = client.post(url(event, f"/entries/{entry.pk}/offer"))
    assert refused.status_code == 400
    assert "Required while the event has no waitlist time window." in _row(
        refused.content.decode(), entry.user.email
    )
    until = (timezone.now() + timedelta(days=1)).replace(second=0, microsecond=0)
    response = client.post(
        url(event, f"/entries/{entry.pk}/offer"),
        {"expires_at": until.strftime("%Y-%m-%dT%H:%M")},  # the owner's zone: UTC
    )
    assert response.status_code == 302
    assert WaitlistOffer.objects.get(event=event).expires_at == until


def test_remove_deletes_the_entry_and_revokes_its_pending_offer(client: Client) -> None:
    event = active_event()
    held = offer(event)
    entry = EventWaitList.objects.get(event=event, user=held.user)
    response = _owner_client(client, event).post(
        url(event, f"/entries/{entry.pk}/remove"), {"confirmed": "yes"}
    )
    assert response.status_code == 302
    assert not EventWaitList.objects.filter(pk=entry.pk).exists()
    held.refresh_from_db()
    assert (held.status, held.revoked_reason) == (Status.REVOKED, "entry_deleted")


def test_revoke_then_reactivate(client: Client) -> None:
    event = active_event()
    held = offer(event)
    client = _owner_client(client, event)
    response = client.post(url(event, f"/offers/{held.pk}/revoke"), {"confirmed": "yes"})
    assert response.status_code == 302
    held.refresh_from_db()
    assert (held.status, held.revoked_reason) == (Status.REVOKED, "organizer")
    row = _row(_offers_table(client.get(url(event)).content.decode()), held.user.email)
    assert "Revoked" in row and ">Reactivate</button>" in row and ">Revoke</button>" not in row
    response = client.post(url(event, f"/offers/{held.pk}/reactivate"))
    assert response.status_code == 302
    held.refresh_from_db()
    assert (held.status, held.revoked_reason) == (Status.PENDING, "")
    assert held.expires_at > timezone.now() + WINDOW - timedelta(minutes=1)


def test_an_expired_offer_can_be_reactivated(client: Client) -> None:
    event = active_event()
    lapsed = offer(event, status=Status.EXPIRED, expires_at=timezone.now() - timedelta(hours=1))
    client = _owner_client(client, event)
    assert ">Reactivate</button>" in client.get(url(event)).content.decode()
    assert client.post(url(event, f"/offers/{lapsed.pk}/reactivate")).status_code == 302
    lapsed.refresh_from_db()
    assert lapsed.status == Status.PENDING


NO_SEAT = (
    "No seat is free: every seat is taken or held by a pending offer; revoke a pending offer first."
)


def test_no_free_seat_is_a_409_in_the_row_and_nothing_changes(client: Client) -> None:
    event = active_event(max_attendees=2)
    fill_with_rsvps(event, 1)
    offer(event)  # the last seat is held
    waiting = queue(event, 1)[0]
    lapsed = offer(event, status=Status.REVOKED, revoked_reason="organizer")
    before = _everything()
    client = _owner_client(client, event)
    response = client.post(url(event, f"/entries/{waiting.pk}/offer"))
    assert response.status_code == 409
    row = _row(response.content.decode(), waiting.user.email)
    assert NO_SEAT in row and 'role="alert"' in row
    assert _everything() == before
    response = client.post(url(event, f"/offers/{lapsed.pk}/reactivate"))
    assert response.status_code == 409
    assert NO_SEAT in _row(_offers_table(response.content.decode()), lapsed.user.email)
    assert _everything() == before


def test_offering_to_someone_holding_a_live_offer_is_refused(client: Client) -> None:
    event = active_event()
    held = offer(event)
    entry = EventWaitList.objects.get(event=event, user=held.user)
    before = _everything()
    response = _owner_client(client, event).post(url(event, f"/entries/{entry.pk}/offer"))
    assert response.status_code == 409
    assert "already holds a pending offer" in _row(response.content.decode(), held.user.email)
    assert _everything() == before


def test_revoking_an_offer_that_is_no_longer_pending_says_so(client: Client) -> None:
    event = active_event()
    claimed = offer(event, status=Status.CLAIMED)
    before = _everything()
    response = _owner_client(client, event).post(url(event, f"/offers/{claimed.pk}/revoke"))
    assert response.status_code == 404
    assert "No pending offer with this id." in response.content.decode()
    assert _everything() == before
