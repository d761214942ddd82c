"""Helpers shared by the waitlist offers admin test modules
(test_waitlist_offers_admin_*.py): the offers route's URL, an event with the active
waitlist on, queue entries and offers set up without checks, and a snapshot of every row
an offers route may write.
"""

import uuid
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import make_event, make_org
from events.models import Event, EventWaitList, Organization, WaitlistOffer
from notifications.models import Notification, NotificationType

Status = WaitlistOffer.WaitlistOfferStatus
Reason = WaitlistOffer.RevokedReason
WINDOW = timedelta(hours=2)
SPOT = NotificationType.WAITLIST_SPOT_AVAILABLE


def _url(event: Event, suffix: str = "") -> str:
    return f"/event-admin/{event.pk}/waitlist-offers{suffix}"


def _owner(api: Any, event: Event) -> Any:
    return api(event.organization.owner)


def _event(organization: Organization | None = None, **fields: Any) -> Event:
    """An open event with the active waitlist on and room for 5."""
    fields = {"max_attendees": 5, "waitlist_open": True, "waitlist_time_window": WINDOW, **fields}
    return make_event(organization or make_org(), **fields)


def _entry(event: Event, user: User | None = None) -> EventWaitList:
    return EventWaitList.objects.create(event=event, user=user or make_user())


def _offer(event: Event, user: User | None = None, **fields: Any) -> WaitlistOffer:
    """A queue member holding an offer in the given state (test setup, no checks)."""
    user = user or make_user()
    EventWaitList.objects.get_or_create(event=event, user=user)
    fields.setdefault("expires_at", timezone.now() + timedelta(hours=1))
    return WaitlistOffer.objects.create(event=event, user=user, batch_id=uuid.uuid4(), **fields)


def _everything() -> list[Any]:
    """Every row an offers route may write, notifications included."""
    return [
        *snapshot(),
        list(WaitlistOffer.objects.order_by("pk").values()),
        list(Notification.objects.order_by("pk").values()),
    ]


def _spot_notices(user: User) -> int:
    return Notification.objects.filter(user=user, notification_type=SPOT).count()


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value)
