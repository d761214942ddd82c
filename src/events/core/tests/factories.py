"""Test data builders for the events app (plain functions, no factory library)."""

import itertools
from datetime import timedelta
from typing import Any

from django.db.models import F
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.models.organization import default_staff_permissions
from events.models import (
    Event,
    EventRSVP,
    Organization,
    OrganizationMember,
    OrganizationStaff,
    Ticket,
    TicketTier,
)

_seq = itertools.count(1)


def make_org(owner: User | None = None, **fields: Any) -> Organization:
    n = next(_seq)
    fields.setdefault("name", f"Org {n}")
    fields.setdefault("slug", f"org-{n}")
    return Organization.objects.create(owner=owner or make_user(), **fields)


def make_event(organization: Organization | None = None, **fields: Any) -> Event:
    n = next(_seq)
    fields.setdefault("name", f"Event {n}")
    fields.setdefault("slug", f"event-{n}")
    fields.setdefault("start", timezone.now() + timedelta(days=7))
    fields.setdefault("status", Event.Status.OPEN)
    return Event.objects.create(organization=organization or make_org(), **fields)


def make_tier(event: Event, **fields: Any) -> TicketTier:
    fields.setdefault("name", f"Tier {next(_seq)}")
    return TicketTier.objects.create(event=event, **fields)


def make_staff(
    organization: Organization, user: User | None = None, /, **permissions: bool
) -> User:
    """A staff member with the default permissions, `permissions` switched as given."""
    user = user or make_user()
    perms = default_staff_permissions()
    perms.update(permissions)
    OrganizationStaff.objects.create(organization=organization, user=user, permissions=perms)
    return user


def make_member(organization: Organization, user: User | None = None, **fields: Any) -> User:
    user = user or make_user()
    OrganizationMember.objects.create(organization=organization, user=user, **fields)
    return user


def fill_with_rsvps(event: Event, count: int) -> list[User]:
    """Seat `count` YES RSVPs directly, keeping attendee_count true (test setup only)."""
    users = [make_user() for _ in range(count)]
    EventRSVP.objects.bulk_create(
        [EventRSVP(event=event, user=u, status=EventRSVP.Status.YES) for u in users]
    )
    Event.objects.filter(pk=event.pk).update(attendee_count=F("attendee_count") + count)
    event.refresh_from_db()
    return users


def fill_with_tickets(event: Event, tier: TicketTier, count: int) -> list[User]:
    """Seat `count` active tickets directly, keeping counters true (test setup only)."""
    users = [make_user() for _ in range(count)]
    Ticket.objects.bulk_create(
        [Ticket(event=event, tier=tier, user=u, status=Ticket.Status.ACTIVE) for u in users]
    )
    TicketTier.objects.filter(pk=tier.pk).update(quantity_sold=tier.quantity_sold + count)
    Event.objects.filter(pk=event.pk).update(attendee_count=event.attendee_count + count)
    event.refresh_from_db()
    tier.refresh_from_db()
    return users
