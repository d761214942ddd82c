"""Declining on the pages (docs/spec/ui.md, event page row "holding a live offer"): the region's
"Decline the offer" button, the offer e-mail's link to `/events/{id}/decline` (a GET
that only asks), and the POST that declines; JavaScript off (plain forms)."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.services.event_manager import EventManager
from events.core.tests.factories import make_event
from events.models import EventWaitList, WaitlistOffer
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.event.support import event_path, has_button, region_of, text_of

pytestmark = pytest.mark.django_db

Offer = WaitlistOffer.WaitlistOfferStatus


def holder_and_next(client: Client):
    """An event with one seat held by a live offer for the signed-in holder, and one
    member waiting behind."""
    event = active_event(1)
    holder, waiting = queue_in_order(event, 2)
    give_offer(event, holder, expires_at=timezone.now() + timedelta(hours=2))
    client.force_login(holder)
    return event, holder, waiting


def test_the_holders_region_offers_decline_beside_claim_and_leave(client: Client) -> None:
    event, _, _ = holder_and_next(client)

    region = region_of(client.get(event_path(event)).content.decode())

    assert has_button(region, "Claim my seat")
    assert has_button(region, "Decline the offer")
    assert has_button(region, "Leave the waitlist")
    assert f'action="/events/{event.pk}/decline"' in region


def test_a_member_without_an_offer_is_not_offered_decline(client: Client) -> None:
    event = active_event(1, attendees=1)
    [member] = queue_in_order(event, 1)
    client.force_login(member)

    region = region_of(client.get(event_path(event)).content.decode())

    assert not has_button(region, "Decline the offer")


def test_the_button_declines_hands_the_seat_on_and_keeps_the_place(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    event, holder, waiting = holder_and_next(client)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{event_path(event)}/decline")

    assert response.status_code == 302
    assert response["Location"] == event_path(event)
    declined = WaitlistOffer.objects.get(event=event, user=holder)
    assert declined.status == Offer.EXPIRED and declined.declined_at is not None
    assert EventWaitList.objects.filter(event=event, user=holder).exists()
    assert WaitlistOffer.objects.get(event=event, user=waiting).status == Offer.PENDING
    region = text_of(region_of(client.get(event_path(event)).content.decode()))
    assert "You are number 1 on the waitlist" in region
    assert "A seat is held for you" not in region


def test_declining_without_a_live_offer_is_refused_in_the_region(client: Client) -> None:
    event = active_event(1, attendees=1)
    [member] = queue_in_order(event, 1)
    client.force_login(member)

    response = client.post(f"{event_path(event)}/decline")

    assert response.status_code == 404
    region = region_of(response.content.decode())
    assert 'class="status-message"' in region
    assert "You hold no live offer for this event." in region
    assert EventWaitList.objects.get(event=event, user=member).last_offer_expired_at is None


def test_the_decline_page_asks_first_and_a_get_changes_nothing(client: Client) -> None:
    event, holder, _ = holder_and_next(client)

    response = client.get(f"{event_path(event)}/decline")

    assert response.status_code == 200
    body = response.content.decode()
    assert "<h1>Decline the offer</h1>" in body
    assert "A seat is held for you until" in body
    assert re.search(r'<form method="post" action="/events/[0-9a-f-]+/decline">', body)
    assert has_button(body, "Decline the offer")
    assert f'href="/events/{event.pk}"' in body  # keep it: back to the event page
    assert WaitlistOffer.objects.get(event=event, user=holder).status == Offer.PENDING


def test_the_decline_page_without_an_offer_says_so_and_has_no_button(client: Client) -> None:
    event = make_event(max_attendees=3)
    client.force_login(make_user())

    body = client.get(f"{event_path(event)}/decline").content.decode()

    assert "You hold no live offer for this event." in body
    assert not has_button(body, "Decline the offer")


def test_anonymous_visitors_are_sent_to_log_in_and_back(client: Client) -> None:
    event, holder, _ = holder_and_next(client)
    client.logout()

    shown = client.get(f"{event_path(event)}/decline")
    posted = client.post(f"{event_path(event)}/decline")

    assert shown.status_code == posted.status_code == 302
    assert shown["Location"] == f"/login?next=%2Fevents%2F{event.pk}%2Fdecline"
    assert posted["Location"].startswith("/login?next=")
    assert WaitlistOffer.objects.get(event=event, user=holder).status == Offer.PENDING


def test_an_event_the_viewer_may_not_see_is_the_404_page(client: Client) -> None:
    event = active_event(1, visibility="private")
    client.force_login(make_user())

    assert client.get(f"{event_path(event)}/decline").status_code == 404
    assert client.post(f"{event_path(event)}/decline").status_code == 404


def test_the_offer_email_links_the_decline_page_which_declines(
    client: Client, settings, django_capture_on_commit_callbacks
) -> None:
    settings.ENCORE_PUBLIC_URL = "https://encore.example"
    event = active_event(1, name="Quartet night")
    attendee = make_user()
    EventManager(attendee, event).rsvp("yes")
    [member, _] = queue_in_order(event, 2)

    with django_capture_on_commit_callbacks(execute=True):
        EventManager(attendee, event).rsvp("no")  # the seat frees: the pass mails the offer

    [message] = [m for m in mail.outbox if member.email in m.to]
    assert isinstance(message, EmailMultiAlternatives)
    html = str(message.alternatives[0][0])
    link = f"https://encore.example/events/{event.pk}/decline"
    assert f"Decline the offer: {link}" in str(message.body)
    assert f'href="{link}"' in html

    client.force_login(member)
    page = client.get(link.removeprefix("https://encore.example"))
    assert page.status_code == 200
    assert has_button(page.content.decode(), "Decline the offer")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(link.removeprefix("https://encore.example"))
    assert WaitlistOffer.objects.get(event=event, user=member).declined_at is not None
