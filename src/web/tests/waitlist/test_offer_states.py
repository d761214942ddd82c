"""Each offer row says what became of it as the statistics count it ("Declined" when its
holder handed it back, "Expired" when it lapsed), "Offer a seat" on a full event says no
seat is free (and suggests revoking only when an offer holds one), and the queue chart
names its axes."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps
from events.models import Event, EventWaitList, WaitlistOffer, WaitlistQueueSample
from web.tests.waitlist.support import Status, active_event, offer, queue, url

pytestmark = pytest.mark.django_db


def owner_page(client: Client, event: Event) -> str:
    client.force_login(event.organization.owner)
    response = client.get(url(event))
    assert response.status_code == 200
    return response.content.decode()


def offer_row(body: str, item: WaitlistOffer) -> str:
    start = body.index(f'id="offer-{item.pk}"')
    return body[start : body.index("</tr>", start)]


def status_of(row: str) -> str:
    found = re.search(r'<span class="offer-status[^"]*">(.*?)</span>', row)
    assert found is not None
    return found.group(1)


def test_a_declined_offer_says_declined_and_a_lapsed_one_expired(client: Client) -> None:
    event = active_event()
    past = timezone.now() - timedelta(hours=1)
    declined = offer(event, status=Status.EXPIRED, expires_at=past, declined_at=past)
    lapsed = offer(event, status=Status.EXPIRED, expires_at=past)
    body = owner_page(client, event)
    assert status_of(offer_row(body, declined)) == "Declined"
    assert status_of(offer_row(body, lapsed)) == "Expired"


def test_declined_and_lapsed_rows_agree_with_the_statistics(client: Client) -> None:
    event = active_event()
    past = timezone.now() - timedelta(hours=1)
    for _ in range(2):
        offer(event, make_user(), status=Status.EXPIRED, expires_at=past, declined_at=past)
    offer(event, make_user(), status=Status.EXPIRED, expires_at=past)
    body = owner_page(client, event)
    offers_table = body[body.index('id="waitlist-offers-heading"') :]
    labels = re.findall(r'<span class="offer-status[^"]*">(.*?)</span>', offers_table)
    assert sorted(labels) == ["Declined", "Declined", "Expired"]
    assert re.search(r"<dt>Declined</dt><dd>2</dd>", body)
    assert re.search(r"<dt>Lapsed</dt><dd>1</dd>", body)


def test_a_declined_offer_can_be_offered_again_as_the_service_allows(client: Client) -> None:
    event = active_event()
    past = timezone.now() - timedelta(hours=1)
    declined = offer(event, status=Status.EXPIRED, expires_at=past, declined_at=past)
    assert ">Reactivate</button>" in offer_row(owner_page(client, event), declined)
    assert client.post(url(event, f"/offers/{declined.pk}/reactivate")).status_code == 302
    declined.refresh_from_db()
    assert (declined.status, declined.declined_at) == (Status.PENDING, None)


def test_offer_a_seat_on_a_full_event_says_no_seat_is_free(client: Client) -> None:
    event = active_event(max_attendees=2)
    fill_with_rsvps(event, 2)
    waiting = queue(event, 1)[0]
    client.force_login(event.organization.owner)
    response = client.post(url(event, f"/entries/{waiting.pk}/offer"))
    assert response.status_code == 409
    body = response.content.decode()
    row = body[body.index(waiting.user.email) :]
    row = row[: row.index("</tr>")]
    assert "No seat is free: every seat is taken." in row
    assert "revoke" not in row.lower().replace(">revoke<", "")
    assert not WaitlistOffer.objects.filter(event=event).exists()


def test_a_german_organiser_reads_the_refusal_in_german(client: Client) -> None:
    event = active_event(max_attendees=1)
    fill_with_rsvps(event, 1)
    waiting = queue(event, 1)[0]
    owner = event.organization.owner
    owner.language = "de"
    owner.save(update_fields=["language"])
    client.force_login(owner)
    response = client.post(url(event, f"/entries/{waiting.pk}/offer"))
    assert "Kein Platz ist frei: Alle Plätze sind vergeben." in response.content.decode()


def test_the_queue_chart_names_its_axes(client: Client) -> None:
    event = active_event(timezone="UTC")
    start = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)
    WaitlistQueueSample.objects.bulk_create(
        WaitlistQueueSample(event=event, at=start + timedelta(hours=n), length=length)
        for n, length in enumerate([1, 4, 2])
    )
    body = owner_page(client, event)
    figure = body[body.index('<figure class="queue-chart">') : body.index("</figure>")]
    assert '<p class="queue-chart-y-title">People waiting</p>' in figure
    assert '<ol class="queue-chart-y-ticks"><li>4</li><li>0</li></ol>' in figure
    assert '<span class="queue-chart-x-title">Time</span>' in figure
    assert "<span>now</span>" in figure


class TestAskFirst:
    def test_revoke_names_the_person_and_changes_nothing_until_yes(self, client: Client) -> None:
        event = active_event()
        held = offer(event, make_user("ana@example.com"))
        client.force_login(event.organization.owner)
        asked = client.post(url(event, f"/offers/{held.pk}/revoke"))
        assert asked.status_code == 200
        body = asked.content.decode()
        assert "ana@example.com loses the held seat and is told." in body
        assert ">Yes, revoke</button>" in body and ">Keep it</a>" in body
        held.refresh_from_db()
        assert held.status == Status.PENDING
        done = client.post(url(event, f"/offers/{held.pk}/revoke"), {"confirmed": "yes"})
        assert done.status_code == 302
        held.refresh_from_db()
        assert held.status == Status.REVOKED

    def test_remove_names_the_person_and_changes_nothing_until_yes(self, client: Client) -> None:
        event = active_event()
        entry = queue(event, 1)[0]
        client.force_login(event.organization.owner)
        asked = client.post(url(event, f"/entries/{entry.pk}/remove"))
        body = asked.content.decode()
        assert f"{entry.user.email} leaves the queue" in body and ">Yes, remove</button>" in body
        assert EventWaitList.objects.filter(pk=entry.pk).exists()
        client.post(url(event, f"/entries/{entry.pk}/remove"), {"confirmed": "yes"})
        assert not EventWaitList.objects.filter(pk=entry.pk).exists()

    def test_both_forms_ask_through_the_shared_dialog(self, client: Client) -> None:
        event = active_event()
        held = offer(event)
        body = owner_page(client, event)
        assert f'action="{url(event)}/offers/{held.pk}/revoke" data-confirm' in body
        assert '/remove" data-confirm' in body

    def test_revoking_an_offer_no_longer_pending_is_refused_in_its_row(
        self, client: Client
    ) -> None:
        event = active_event()
        claimed = offer(event, status=Status.CLAIMED)
        client.force_login(event.organization.owner)
        response = client.post(url(event, f"/offers/{claimed.pk}/revoke"))
        assert response.status_code == 404
        assert "No pending offer with this id." in response.content.decode()
