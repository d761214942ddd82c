"""h5: the signed-in attendee's pages (web.views.me) through the whole HTTP stack.

A session login (`force_login`), then one page each: `/me` for an attendee with 20
upcoming events of every kind (RSVPs, tickets, queue places with a live offer on half of
them, 800 people queued ahead), `/me/notifications` with 200 notifications (one page of
20 shown), `/me/settings` (the profile, 600 zones, the preference grid).
"""

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from accounts.models import User
from bench import builders
from bench.registry import Measured, scenario
from events.models import EventRSVP, Ticket, TicketTier
from notifications.models import Notification

EVENTS = 20


def _attendee() -> User:
    person = builders.users(1, "me")[0]
    rsvp_events = [
        builders.waitlist_event("me-rsvp", capacity=100, batch_size=0) for _ in range(EVENTS)
    ]
    EventRSVP.objects.bulk_create(
        [EventRSVP(event=e, user=person, status="yes") for e in rsvp_events]
    )
    for _ in range(EVENTS):
        event = builders.waitlist_event(
            "me-ticket", capacity=100, batch_size=0, requires_ticket=True
        )
        tier = TicketTier.objects.create(event=event, name="General admission")
        Ticket.objects.create(event=event, tier=tier, user=person)
    for n in range(EVENTS):
        event = builders.waitlist_event("me-queue", capacity=1, batch_size=1)
        builders.queue(event, builders.users(40, "me-ahead"))
        builders.queue(event, [person])
        if n % 2:
            builders.offers(event, [person], timezone.now() + timedelta(hours=1))
    return person


def _client(person: User, path: str, expected: str) -> Measured:
    client = Client()
    client.force_login(person, backend="django.contrib.auth.backends.ModelBackend")

    def call() -> object:
        response = client.get(path)
        assert response.status_code == 200, (response.status_code, response.content[:300])
        body = response.content.decode()
        assert expected in body, f"{expected!r} not on {path}"
        return body

    return call


@scenario(
    "h5a", "GET /me (signed in)", data=f"{EVENTS} RSVPs, {EVENTS} tickets, {EVENTS} queue places"
)
def my_page() -> Measured:
    return _client(_attendee(), "/me", "You are number 41 on the waitlist")


@scenario("h5b", "GET /me/notifications (signed in)", data="200 notifications, page of 20")
def my_notifications() -> Measured:
    person = builders.users(1, "me-inbox")[0]
    Notification.objects.bulk_create(
        [
            Notification(
                user=person,
                notification_type="event_updated",
                title=f"Bench news {n}",
                body="Something changed.",
                context={"event_url": f"http://127.0.0.1:8000/events/{n}"},
                in_app=True,
            )
            for n in range(200)
        ]
    )
    return _client(person, "/me/notifications", "Mark all as read")


@scenario("h5c", "GET /me/settings (signed in)", data="profile, zones, preference grid")
def my_settings() -> Measured:
    return _client(builders.users(1, "me-settings")[0], "/me/settings", "Download my data")
