"""Helpers shared by the user deletion test modules (test_user_deletion_*.py): a logged-in
operator in the Django admin, deleting through the admin, the admin's messages, the
numbers the public sees, and the RSVPs and paid tickets a deleted user holds.
"""

from decimal import Decimal

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.services.event_manager import EventManager
from events.core.tests.factories import make_tier
from events.models import Event, EventRSVP, Ticket, TicketTier
from events.ticketing.tests.ticket_helpers import buy


# -- helpers -----------------------------------------------------------------------------
@pytest.fixture
def operator_client() -> Client:
    client = Client()
    client.force_login(make_user(is_staff=True, is_superuser=True))
    return client


def admin_delete(client: Client, user: User):
    """Confirm the admin's delete page of `user` (what the operator's button posts)."""
    return client.post(reverse("admin:accounts_user_delete", args=[user.pk]), {"post": "yes"})


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def public_numbers(api, event: Event) -> tuple[int, int]:
    body = api(None).get(f"/events/{event.pk}").json()
    return body["attendee_count"], body["seats_held"]


def exists(user: User) -> bool:
    return User.objects.filter(pk=user.pk).exists()


def rsvp_yes(event: Event, user: User | None = None) -> User:
    """A YES RSVP through the real writer (locks, counter)."""
    user = user or make_user()
    EventManager(user, event).rsvp(EventRSVP.Status.YES, by_staff=True)
    return user


def paid_ticket(event: Event, user: User | None = None, *, price: str = "20.00") -> Ticket:
    """A box-office style ticket: priced tier, active, paid now."""
    user = user or make_user()
    tier = make_tier(event, price=Decimal(price), payment_method=TicketTier.PaymentMethod.OFFLINE)
    [ticket] = buy(event, tier, user)
    Ticket.objects.filter(pk=ticket.pk).update(status=Ticket.Status.ACTIVE, paid_at=timezone.now())
    ticket.refresh_from_db()
    return ticket
