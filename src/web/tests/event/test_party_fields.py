"""The party fields of the pages (issue 12 items 3 and 6): "Party size" and "Ticket type"
when joining the waitlist, "Guests" when attending, the organiser's "Largest party" and
"Party policy", and "Claim my seat" registering the whole party."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_tickets, make_tier
from events.models import EventRSVP, EventWaitList, TicketTier, WaitlistOffer
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.event.support import event_path, region_of, status_region

pytestmark = pytest.mark.django_db


def has_field(html: str, label: str) -> bool:
    return re.search(rf"<label>{re.escape(label)} <(input|select)\b", html) is not None


def test_party_size_is_offered_only_when_the_event_allows_parties(client: Client) -> None:
    client.force_login(make_user())
    single = active_event(1, attendees=1)
    parties = active_event(1, attendees=1, waitlist_max_party_size=4)

    assert not has_field(status_region(client, single), "Party size")
    region = status_region(client, parties)
    assert has_field(region, "Party size")
    assert 'name="party_size" min="1" max="4"' in region


def test_joining_with_a_party_queues_it_and_too_large_a_party_is_refused(client: Client) -> None:
    event = active_event(1, attendees=1, waitlist_max_party_size=3)
    user = make_user()
    client.force_login(user)

    refused = client.post(f"{event_path(event)}/waitlist/join", {"party_size": "4"})
    assert refused.status_code == 400
    assert not EventWaitList.objects.filter(event=event).exists()

    joined = client.post(f"{event_path(event)}/waitlist/join", {"party_size": "3"})
    assert joined.status_code == 302
    assert EventWaitList.objects.get(event=event, user=user).party_size == 3


def test_ticket_type_lists_the_tiers_and_any(client: Client) -> None:
    event = active_event(2, requires_ticket=True)
    free = TicketTier.PaymentMethod.FREE
    standard = make_tier(event, name="Standard", payment_method=free)
    make_tier(event, name="VIP", payment_method=free)
    fill_with_tickets(event, standard, 2)
    client.force_login(make_user())

    region = region_of(client.get(event_path(event)).content.decode())

    assert has_field(region, "Ticket type")
    assert ">Any ticket type</option>" in region and ">VIP</option>" in region


def test_attend_asks_for_guests_when_parties_are_allowed(client: Client) -> None:
    event = active_event(10, waitlist_max_party_size=3)
    user = make_user()
    client.force_login(user)

    assert has_field(status_region(client, event), "Guests")
    response = client.post(f"{event_path(event)}/attend", {"guests": "2"})

    assert response.status_code == 302
    assert EventRSVP.objects.get(event=event, user=user).guests == 2
    event.refresh_from_db()
    assert event.attendee_count == 3


def test_claim_my_seat_registers_the_whole_party(client: Client) -> None:
    event = active_event(10, attendees=6, waitlist_max_party_size=4)
    [me] = queue_in_order(event, 1)
    offer = give_offer(event, me, expires_at=timezone.now() + timedelta(hours=1))
    WaitlistOffer.objects.filter(pk=offer.pk).update(seats=4)
    client.force_login(me)

    assert client.post(f"{event_path(event)}/claim").status_code == 302

    event.refresh_from_db()
    assert event.attendee_count == 10
    assert EventRSVP.objects.get(event=event, user=me).guests == 3


def test_the_organiser_sets_largest_party_and_policy_and_the_sentence_says_so(
    client: Client,
) -> None:
    event = active_event(5)
    client.force_login(event.organization.owner)
    page = f"/manage/events/{event.pk}/waitlist"
    form = {
        "waitlist_open": "on",
        "waitlist_time_window": "2",
        "waitlist_batch_size": "0",
        "waitlist_cutoff_date": "",
        "waitlist_max_party_size": "4",
        "waitlist_party_policy": "fill",
    }
    body = client.get(page).content.decode()
    assert "Largest party" in body and "Party policy" in body

    response = client.post(page, form)

    assert response.status_code == 302
    event.refresh_from_db()
    assert (event.waitlist_max_party_size, event.waitlist_party_policy) == (4, "fill")
    saved = client.get(response["Location"]).content.decode()
    assert "party of up to 4 seats" in saved
    assert "smaller parties behind it may take them" in saved


def test_a_largest_party_over_10_is_shown_next_to_its_field(client: Client) -> None:
    event = active_event(5)
    client.force_login(event.organization.owner)
    form = {"waitlist_open": "on", "waitlist_time_window": "2", "waitlist_batch_size": "0"}

    response = client.post(
        f"/manage/events/{event.pk}/waitlist", {**form, "waitlist_max_party_size": "11"}
    )

    assert response.status_code == 400
    event.refresh_from_db()
    assert event.waitlist_max_party_size == 1
