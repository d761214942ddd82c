"""The SERIES_EVENTS_GENERATED digest: one notification per person per generation batch.

Materialising occurrences never sends `event_open` per occurrence; a batch with at least
one new occurrence sends this one digest instead, after the generation transaction
committed (`common.dispatch.call_after_commit`): a failing digest is logged and
never rolls back the occurrences, and a rolled-back batch sends nothing.

The audience mirrors who would have heard of the opened events, gated by the template's
visibility (docs/spec/series-design.md), and narrower for drafts (docs/spec/seed-tables.md "Digest for drafts"):

- drafts (no auto-publish), and staff_only / private / unlisted templates → the owner
  and the staff;
- members_only → also active and paused members;
- public → also the followers of the organisation or of the series who want new events
  (not archived); a non-public organisation keeps outsiders out, as for `event_open`.

Blacklisted people never hear of it (owner and staff aside); deactivated accounts never.
Each person's NotificationPreference (silence, type or channel off) is applied by the
notifications app when it dispatches.
"""

import logging
import uuid
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Exists, Q

from accounts.models import User
from common import dispatch
from events.core.selectors import audiences
from events.core.services import notification_context
from events.models import (
    Event,
    EventSeries,
    Organization,
)
from notifications.models import NotificationType
from notifications.signals import notification_requested

logger = logging.getLogger("encore.series")

#: Visibilities whose occurrences the digest announces beyond the owner and staff.
MEMBER_VISIBILITIES = (Event.Visibility.MEMBERS_ONLY, Event.Visibility.PUBLIC)


def notify_series_events_generated(series_id: uuid.UUID, event_ids: Sequence[uuid.UUID]) -> None:
    """Send the digest once the surrounding transaction commits (at once outside one)."""
    ids = list(event_ids)
    if not ids:
        return

    dispatch.call_after_commit(
        "series digest",
        lambda: send_series_events_generated(series_id, ids),
        series_id=str(series_id),
    )


def send_series_events_generated(series_id: uuid.UUID, event_ids: Sequence[uuid.UUID]) -> int:
    """One digest to each person of the audience; returns how many were notified."""
    series = (
        EventSeries.objects.select_related("organization", "template_event")
        .filter(pk=series_id)
        .first()
    )
    events = list(Event.objects.filter(pk__in=event_ids).order_by("start", "pk"))
    if series is None or series.template_event is None or not events:
        return 0
    published = any(event.status == Event.Status.OPEN for event in events)
    audience = digest_audience(
        series, visibility=series.template_event.visibility, published=published
    )
    context = notification_context.series_digest_context(series, events)
    with transaction.atomic():
        for user in audience:
            notification_requested.send(
                sender=EventSeries,
                notification_type=NotificationType.SERIES_EVENTS_GENERATED,
                user=user,
                context=context,
            )
    logger.info(
        "series digest requested",
        extra={"series_id": str(series_id), "events": len(events), "recipients": len(audience)},
    )
    return len(audience)


def digest_audience(series: EventSeries, *, visibility: str, published: bool) -> list[User]:
    """Who gets the digest (module docstring), in one query; `series.organization` loaded."""
    organization = series.organization
    staff = audiences.owner_and_staff(organization)
    audience = staff
    if published and visibility in MEMBER_VISIBILITIES:
        members = audiences.live_members(organization)
        outsiders = members
        if visibility == Event.Visibility.PUBLIC:
            followers = audiences.new_event_followers(series.organization_id, series.pk)
            if organization.visibility != Organization.Visibility.PUBLIC:
                followers &= members
            outsiders |= followers
        blacklisted = Q(Exists(audiences.blacklist_entries(organization)))
        audience = staff | (outsiders & ~blacklisted)
    return list(User.objects.filter(is_active=True).filter(audience).order_by("pk"))
