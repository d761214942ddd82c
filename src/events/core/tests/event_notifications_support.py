"""Helpers shared by the event notification test modules (test_event_notifications_*.py): the
`committed` fixture that plays the role of the commit, who received what and how often,
the context a notification carries, and the people (followers, ticket holders, RSVPs) an
event's notifications can reach.
"""

import uuid
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_org
from events.models import Event, EventRSVP, Organization, OrganizationFollow
from notifications.models import Notification

VIENNA_START = datetime(2031, 3, 4, 18, 0, tzinfo=UTC)  # 19:00 CET in Vienna
VIENNA_START_FORMATTED = "Tue 4 Mar 2031, 19:00 CET"

Committed = Callable[[], AbstractContextManager[Any]]


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Committed:
    """`with committed(): ...` runs the on-commit hooks registered inside, as a commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def recipients(notification_type: str) -> Counter[uuid.UUID]:
    """user id → how many notifications of this type they got."""
    return Counter(
        Notification.objects.filter(notification_type=notification_type).values_list(
            "user_id", flat=True
        )
    )


def exactly_once(*users: User) -> Counter[uuid.UUID]:
    return Counter(user.pk for user in users)


def context_of(notification_type: str, user: User) -> dict[str, Any]:
    notification = Notification.objects.get(notification_type=notification_type, user=user)
    return notification.context


def follow(organization: Organization, user: User | None = None, **fields: Any) -> User:
    user = user or make_user()
    OrganizationFollow.objects.create(organization=organization, user=user, **fields)
    return user


def rsvp(event: Event, status: str, user: User | None = None) -> User:
    user = user or make_user()
    EventRSVP.objects.create(event=event, user=user, status=status)
    return user


def vienna_org(**fields: Any) -> Organization:
    fields.setdefault("timezone", "Europe/Vienna")
    return make_org(name=f"Wiener Verein {uuid.uuid4().hex[:6]}", **fields)
