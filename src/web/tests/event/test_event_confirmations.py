""" "Cancel my RSVP" and "Cancel ticket" on `/events/<id>` ask first and name what is given
up; only the answer "yes" gives it back."""

from typing import Any

import pytest
from django.db.models import F
from django.test import Client
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.services.event_manager import EventManager
from events.core.tests.factories import make_event, make_org, make_tier
from events.models import Event, EventRSVP, Ticket
from web.tests.event.support import event_path

pytestmark = pytest.mark.django_db


def _post(client: Client, event: Event, action: str, **data: str) -> Any:
    return client.post(f"{event_path(event)}/{action}", data)


def _ticket(event: Event, **fields: Any) -> Ticket:
    """One ticket written directly, its seat counted (the checkout is not under test)."""
    tier = make_tier(event, name="Balcony", quantity_sold=1)
    Event.objects.filter(pk=event.pk).update(attendee_count=F("attendee_count") + 1)
    fields.setdefault("status", Ticket.Status.ACTIVE)
    return Ticket.objects.create(event=event, tier=tier, **fields)


def test_cancel_my_rsvp_asks_first_and_keeps_the_seat_until_yes(client: Client) -> None:
    event = make_event(name="Quiz Night", max_attendees=5)
    user = make_user()
    EventManager(user, event).rsvp("yes", guests=2)
    client.force_login(user)
    asked = _post(client, event, "cancel-rsvp")
    page = asked.content.decode()
    assert asked.status_code == 200
    assert '<h1 id="confirm-heading">Cancel my RSVP?</h1>' in page
    assert "You give up your 3 seats at Quiz Night (yours and your guests&#x27;)" in page
    assert ">Yes, cancel my RSVP</button>" in page
    assert f'href="{event_path(event)}" data-confirm-keep>Keep it</a>' in page
    assert EventRSVP.objects.get(event=event, user=user).status == EventRSVP.Status.YES

    done = _post(client, event, "cancel-rsvp", confirmed="yes")
    assert done.status_code == 302
    assert EventRSVP.objects.get(event=event, user=user).status == EventRSVP.Status.NO


def test_without_a_yes_to_give_back_nothing_is_asked(client: Client) -> None:
    event = make_event()
    client.force_login(make_user())
    response = _post(client, event, "cancel-rsvp")
    assert "confirm-heading" not in response.content.decode()


def test_cancel_ticket_names_the_ticket_and_the_money(client: Client) -> None:
    event = make_event(make_org(name="Folk Club"), name="Gala", requires_ticket=True)
    user = make_user()
    ticket = _ticket(event, user=user, holder_name="Ada", paid_at=timezone.now())
    client.force_login(user)
    page = _post(client, event, f"tickets/{ticket.pk}/cancel").content.decode()
    assert '<h1 id="confirm-heading">Cancel ticket?</h1>' in page
    assert "The Balcony ticket of Ada for Gala is cancelled" in page
    assert "You paid for it: ask Folk Club for your money back." in page
    assert ">Yes, cancel ticket</button>" in page
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE

    _post(client, event, f"tickets/{ticket.pk}/cancel", confirmed="yes")
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.CANCELLED


def test_the_dialog_asks_about_an_unpaid_ticket(client: Client) -> None:
    event = make_event(name="Gala", requires_ticket=True)
    user = make_user()
    ticket = _ticket(event, user=user, status=Ticket.Status.PENDING)
    client.force_login(user)
    response = client.post(
        f"{event_path(event)}/tickets/{ticket.pk}/cancel", headers={"X-Encore-Confirm": "dialog"}
    )
    page = response.content.decode()
    assert response["X-Encore-Confirm"] == "dialog"
    assert "Your Balcony ticket for Gala is cancelled; its seat can go to someone else." in page
    assert "money" not in page


def test_somebody_elses_ticket_is_never_asked_about(client: Client) -> None:
    event = make_event(requires_ticket=True)
    ticket = _ticket(event, user=make_user(), holder_name="Secret Holder")
    client.force_login(make_user())
    response = _post(client, event, f"tickets/{ticket.pk}/cancel")
    assert response.status_code == 404
    assert "Secret Holder" not in response.content.decode()


def test_the_status_region_marks_both_forms_to_ask_in_a_dialog(client: Client) -> None:
    event = make_event(requires_ticket=True)
    user = make_user()
    ticket = _ticket(event, user=user)
    free = make_event()
    EventManager(user, free).rsvp("yes")
    client.force_login(user)
    page = client.get(event_path(event)).content.decode()
    assert f'action="/events/{event.pk}/tickets/{ticket.pk}/cancel" data-confirm>' in page
    page = client.get(event_path(free)).content.decode()
    assert f'action="/events/{free.pk}/cancel-rsvp" data-confirm>' in page
