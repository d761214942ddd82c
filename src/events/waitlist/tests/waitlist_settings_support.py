"""Helpers shared by the waitlist settings test modules (test_waitlist_settings_*.py): the
settings route, a PATCH to it, an event with the active waitlist on, and an offer on it.
"""

import uuid
from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event, make_org
from events.models import Event, EventWaitList, WaitlistOffer

Status = WaitlistOffer.WaitlistOfferStatus


def _url(event: Event) -> str:
    return f"/event-admin/{event.pk}/waitlist-settings"


def _patch(api: Any, event: Event, body: dict[str, Any]) -> Any:
    return api(event.organization.owner).patch(_url(event), body)


def _active_event(**fields: Any) -> Event:
    fields = {
        "max_attendees": 5,
        "waitlist_open": True,
        "waitlist_time_window": timedelta(hours=2),
        **fields,
    }
    return make_event(make_org(), **fields)


def _offer(event: Event, user: Any = None, **fields: Any) -> WaitlistOffer:
    """A queue member with an offer in the given state (test setup, no capacity check)."""
    user = user or make_user()
    EventWaitList.objects.get_or_create(event=event, user=user)
    fields.setdefault("expires_at", timezone.now() + timedelta(hours=1))
    return WaitlistOffer.objects.create(event=event, user=user, batch_id=uuid.uuid4(), **fields)
