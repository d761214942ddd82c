"""Shared pieces of the event administration tests: a recorder for waitlist dispatches
and a snapshot of every row an admin route can change (to show a refusal wrote nothing).
"""

import itertools
import uuid
from typing import Any

import pytest
from django.db.models import F

from accounts.models import User
from events.models import (
    Event,
    EventRSVP,
    EventWaitList,
    Invitation,
    Organization,
    Ticket,
    TicketTier,
)
from events.tests.factories import make_event, make_org, make_staff


class DispatchRecorder:
    """Stands in for `waitlist_service._dispatch`: records the event ids it was given."""

    def __init__(self) -> None:
        self.event_ids: list[uuid.UUID] = []

    def __call__(self, event_id: uuid.UUID) -> None:
        self.event_ids.append(event_id)


@pytest.fixture
def dispatched(monkeypatch: pytest.MonkeyPatch) -> DispatchRecorder:
    recorder = DispatchRecorder()
    monkeypatch.setattr("events.service.waitlist_service._dispatch", recorder)
    return recorder


def snapshot() -> list[Any]:
    """Every table the event admin routes write, in a comparable form."""
    return [
        list(model.objects.order_by("pk").values())
        for model in (Event, TicketTier, Ticket, EventRSVP, Invitation, EventWaitList)
    ]


# -- cheap builders ----------------------------------------------------------------------
# The tests authenticate with JWTs minted for the user, never with a password, and a
# PBKDF2 hash per user costs up to a second on a busy machine: these builders create
# users without a usable password and otherwise defer to the shared factories.
_seq = itertools.count(1)


def quick_user(**fields: Any) -> User:
    fields.setdefault("email", f"admin-{next(_seq)}-{uuid.uuid4().hex[:8]}@example.com")
    return User.objects.create_user(password=None, **fields)


def quick_org(**fields: Any) -> Organization:
    return make_org(owner=quick_user(), **fields)


def quick_event(organization: Organization | None = None, **fields: Any) -> Event:
    return make_event(organization or quick_org(), **fields)


def quick_staff(organization: Organization, **permissions: bool) -> User:
    return make_staff(organization, user=quick_user(), **permissions)


def quick_rsvps(event: Event, count: int) -> list[User]:
    """Seat `count` YES RSVPs directly, keeping attendee_count true (test setup only)."""
    users = [quick_user() for _ in range(count)]
    EventRSVP.objects.bulk_create(
        [EventRSVP(event=event, user=u, status=EventRSVP.Status.YES) for u in users]
    )
    Event.objects.filter(pk=event.pk).update(attendee_count=F("attendee_count") + count)
    event.refresh_from_db()
    return users
