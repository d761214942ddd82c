"""Builders for the me pages' tests: rows written directly (the pages are what is tested)."""

import uuid
from datetime import timedelta
from typing import Any

from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from common import links
from events.core.tests.factories import make_event, make_tier
from events.models import Event, EventRSVP, EventWaitList, Ticket, WaitlistOffer
from notifications.models import Notification


def signed_in_client(user: User) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def rsvp(event: Event, user: User, status: str = EventRSVP.Status.YES) -> EventRSVP:
    return EventRSVP.objects.create(event=event, user=user, status=status)


def ticket(event: Event, user: User, **fields: Any) -> Ticket:
    tier = event.ticket_tiers.first() or make_tier(event, name="Standard")
    return Ticket.objects.create(event=event, tier=tier, user=user, **fields)


def queue(event: Event, user: User, minutes_ago: int = 0) -> EventWaitList:
    entry = EventWaitList.objects.create(event=event, user=user)
    joined = timezone.now() - timedelta(minutes=minutes_ago)
    EventWaitList.objects.filter(pk=entry.pk).update(created_at=joined)
    return entry


def live_offer(event: Event, user: User, minutes: int = 23) -> WaitlistOffer:
    return WaitlistOffer.objects.create(
        event=event,
        user=user,
        expires_at=timezone.now() + timedelta(minutes=minutes, seconds=30),
        batch_id=uuid.uuid4(),
    )


def notify(user: User, title: str, event: Event | None = None, **fields: Any) -> Notification:
    """An in-app notification whose context links as Encore's do (`common.links`)."""
    context = {"event_url": links.event_url(event.pk), "event_id": str(event.pk)} if event else {}
    fields.setdefault("notification_type", "event_updated")
    fields.setdefault("context", context)
    return Notification.objects.create(
        user=user, title=title, body=f"{title} body", in_app=True, **fields
    )


def full_week(user: User | None = None, count: int = 1) -> User:
    """`user` with `count` of each: an RSVP, a ticket, a queue place (with a live offer)."""
    user = user or make_user()
    for n in range(count):
        rsvp(make_event(name=f"Picnic {n}"), user)
        ticket(make_event(name=f"Gala {n}", requires_ticket=True), user)
        crowded = make_event(name=f"Concert {n}", waitlist_open=True, max_attendees=1)
        queue(crowded, make_user(), minutes_ago=10)
        queue(crowded, user, minutes_ago=5)
        offered = make_event(name=f"Opera {n}", waitlist_open=True, max_attendees=1)
        queue(offered, user)
        live_offer(offered, user)
    return user
