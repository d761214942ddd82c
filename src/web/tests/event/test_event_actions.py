"""The region's buttons as plain forms (JS off): each POST acts through the service of
its API route and redirects back to the page; a refusal changes nothing and shows in
the region with the refusal's status."""

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_rsvps, make_event, make_tier
from events.models import Event, EventRSVP, EventWaitList, Ticket, TicketTier, WaitlistOffer
from events.waitlist.tests.waitlist_builders import active_event, give_offer, queue_in_order
from web.tests.event.support import event_path, has_button, region_of, text_of

pytestmark = pytest.mark.django_db

Offer = WaitlistOffer.WaitlistOfferStatus
#: "Cancel my RSVP" and "Cancel ticket" ask first (test_event_confirmations); this says yes.
YES: dict[str, object] = {"confirmed": "yes"}


def post(client: Client, event: Event, action: str, data: dict[str, object] | None = None) -> Any:
    return client.post(f"{event_path(event)}/{action}", data or {})


def assert_back_on_the_page(response: Any, event: Event) -> None:
    assert response.status_code == 302, response.content[:500]
    assert response["Location"] == event_path(event)


def test_attend_rsvps_yes_and_the_page_then_says_attending(client: Client) -> None:
    event = make_event(max_attendees=5)
    user = make_user()
    client.force_login(user)
    assert_back_on_the_page(post(client, event, "attend"), event)
    assert EventRSVP.objects.get(event=event, user=user).status == EventRSVP.Status.YES
    event.refresh_from_db()
    assert event.attendee_count == 1
    region = region_of(client.get(event_path(event)).content.decode())
    assert "You are attending" in region and has_button(region, "Cancel my RSVP")


def test_cancel_my_rsvp_frees_the_seat(client: Client) -> None:
    event = make_event(max_attendees=5)
    [user] = fill_with_rsvps(event, 1)
    client.force_login(user)
    assert_back_on_the_page(post(client, event, "cancel-rsvp", YES), event)
    assert EventRSVP.objects.get(event=event, user=user).status == EventRSVP.Status.NO
    event.refresh_from_db()
    assert event.attendee_count == 0
    assert has_button(region_of(client.get(event_path(event)).content.decode()), "Attend")


def test_attending_a_full_event_is_refused_in_the_region_and_nothing_changes(
    client: Client,
) -> None:
    event = active_event(1, attendees=1)
    user = make_user()
    client.force_login(user)
    response = post(client, event, "attend")
    assert response.status_code == 409
    region = region_of(response.content.decode())
    assert 'class="status-message"' in region and "This event is full." in region
    assert has_button(region, "Join the waitlist")
    assert not EventRSVP.objects.filter(event=event, user=user).exists()
    # The poll finds the situation unchanged, so the message is not swapped away.
    partial = client.get(f"{event_path(event)}/status")
    assert f'data-state="{partial["X-Encore-State"]}"' in region


def test_join_then_leave_the_waitlist(client: Client) -> None:
    event = active_event(1, attendees=1)
    user = make_user()
    client.force_login(user)
    assert_back_on_the_page(post(client, event, "waitlist/join"), event)
    assert EventWaitList.objects.filter(event=event, user=user).exists()
    assert "You are number 1 on the waitlist" in client.get(event_path(event)).content.decode()

    assert_back_on_the_page(post(client, event, "waitlist/leave"), event)
    assert not EventWaitList.objects.filter(event=event, user=user).exists()
    assert has_button(
        region_of(client.get(event_path(event)).content.decode()), "Join the waitlist"
    )


def test_joining_when_there_is_room_is_refused_and_nothing_changes(client: Client) -> None:
    event = active_event(5, attendees=1)
    user = make_user()
    client.force_login(user)
    response = post(client, event, "waitlist/join")
    assert response.status_code == 409
    assert "There is room at this event" in text_of(region_of(response.content.decode()))
    assert not EventWaitList.objects.filter(event=event).exists()


def test_claim_my_seat_claims_the_offer_by_rsvp(client: Client) -> None:
    event = active_event(2, attendees=1)
    [me] = queue_in_order(event, 1)
    offer = give_offer(event, me, expires_at=timezone.now() + timedelta(hours=1))
    client.force_login(me)
    assert_back_on_the_page(post(client, event, "claim"), event)
    offer.refresh_from_db()
    assert offer.status == Offer.CLAIMED
    assert EventRSVP.objects.get(event=event, user=me).status == EventRSVP.Status.YES
    assert not EventWaitList.objects.filter(event=event, user=me).exists()
    assert "You are attending" in client.get(event_path(event)).content.decode()


def test_a_claim_refused_after_the_offer_lapsed_shows_the_refusal(client: Client) -> None:
    event = active_event(2, attendees=1)
    me, other = queue_in_order(event, 2)
    give_offer(event, me, expires_at=timezone.now() - timedelta(minutes=1))  # lapsed
    give_offer(event, other, expires_at=timezone.now() + timedelta(hours=1))  # the seat moved on
    client.force_login(me)
    response = post(client, event, "claim")
    assert response.status_code == 409
    region = region_of(response.content.decode())
    assert "You are on the waitlist. Waiting for your turn." in region  # the refusal
    assert "You are number 1 on the waitlist" in region  # the situation, unchanged
    assert not EventRSVP.objects.filter(event=event, user=me).exists()


def test_leave_while_holding_an_offer_releases_it(client: Client) -> None:
    event = active_event(2, attendees=1)
    [me] = queue_in_order(event, 1)
    offer = give_offer(event, me, expires_at=timezone.now() + timedelta(hours=1))
    client.force_login(me)
    assert_back_on_the_page(post(client, event, "waitlist/leave"), event)
    offer.refresh_from_db()
    assert offer.status == Offer.EXPIRED
    assert not EventWaitList.objects.filter(event=event, user=me).exists()


def test_get_tickets_then_confirm_sells_through_the_checkout(client: Client) -> None:
    event = make_event(requires_ticket=True, max_attendees=10)
    tier = make_tier(event, name="Standard", total_quantity=5)
    make_tier(event, name="Door", payment_method=TicketTier.PaymentMethod.AT_THE_DOOR)
    user = make_user()
    client.force_login(user)
    form = client.get(f"{event_path(event)}/checkout")
    assert form.status_code == 200
    body = form.content.decode()
    field = f"tier_{tier.pk.hex}"
    assert f'<label for="id_{field}">Standard</label>' in body
    assert '<button type="submit">Confirm</button>' in body

    assert_back_on_the_page(post(client, event, "checkout", {field: "2"}), event)
    tickets = Ticket.objects.filter(event=event, user=user)
    assert [t.tier_id for t in tickets] == [tier.pk, tier.pk]
    region = region_of(client.get(event_path(event)).content.decode())
    assert "You are attending" in region and region.count(">Cancel ticket</button>") == 2


def test_checkout_refusals_show_on_the_form_and_sell_nothing(client: Client) -> None:
    event = make_event(requires_ticket=True, max_attendees=10)
    tier = make_tier(event, total_quantity=1)
    client.force_login(make_user())
    field = f"tier_{tier.pk.hex}"
    empty = post(client, event, "checkout", {field: "0"})
    assert empty.status_code == 400
    assert "Choose at least one ticket." in empty.content.decode()
    too_many = post(client, event, "checkout", {field: "2"})
    assert too_many.status_code == 409
    assert "Not enough tickets are left in this tier." in too_many.content.decode()
    assert not Ticket.objects.filter(event=event).exists()


def test_a_held_offer_is_claimed_by_the_checkout(client: Client) -> None:
    event = active_event(1, attendees=0, requires_ticket=True)
    tier = make_tier(event)
    [me] = queue_in_order(event, 1)
    offer = give_offer(event, me, expires_at=timezone.now() + timedelta(hours=1))
    client.force_login(me)
    claim = post(client, event, "claim")
    assert claim["Location"] == f"{event_path(event)}/checkout"
    form = client.get(claim["Location"]).content.decode()
    assert "A seat is held for you until" in form  # the deadline stays in sight
    assert_back_on_the_page(post(client, event, "checkout", {f"tier_{tier.pk.hex}": "1"}), event)
    offer.refresh_from_db()
    assert offer.status == Offer.CLAIMED


def test_cancel_ticket_gives_the_ticket_back(client: Client) -> None:
    event = make_event(requires_ticket=True, max_attendees=10)
    tier = make_tier(event)
    user = make_user()
    client.force_login(user)
    post(client, event, "checkout", {f"tier_{tier.pk.hex}": "1"})
    ticket = Ticket.objects.get(event=event, user=user)
    assert_back_on_the_page(post(client, event, f"tickets/{ticket.pk}/cancel", YES), event)
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.CANCELLED
    again = post(client, event, f"tickets/{ticket.pk}/cancel")
    assert again.status_code == 409
    assert "This ticket is already cancelled." in region_of(again.content.decode())
    someone_else = make_user()
    client.force_login(someone_else)
    assert post(client, event, f"tickets/{ticket.pk}/cancel").status_code == 404


def test_anonymous_posts_go_to_the_log_in_page_and_change_nothing(client: Client) -> None:
    event = active_event(1, attendees=1)
    for action in ("attend", "waitlist/join", "waitlist/leave", "claim", "checkout"):
        response = post(client, event, action)
        assert response.status_code == 302
        assert response["Location"].startswith("/login?next=")
    assert not EventWaitList.objects.filter(event=event).exists()


def test_actions_on_an_invisible_event_are_404(client: Client) -> None:
    draft = make_event(status=Event.Status.DRAFT, max_attendees=5)
    client.force_login(make_user())
    for action in ("attend", "waitlist/join", "claim", "checkout"):
        assert post(client, draft, action).status_code == 404
    assert not EventRSVP.objects.filter(event=draft).exists()


def test_actions_are_post_only(client: Client) -> None:
    event = make_event()
    client.force_login(make_user())
    assert client.get(f"{event_path(event)}/attend").status_code == 405
