"""Template edits and their propagation to the occurrences (docs/spec/seed-tables.md).

Only PROPAGATABLE_FIELDS may change: schedule, status, slug, series fields, counters and
tiers stay each occurrence's own. Fields are set as the event PATCH sets them
(`event_fields.set_field`), and each reached occurrence gets the PATCH's follow-ups: a
capacity increase or waitlist settings that may allow a batch enqueue processing, a
closed queue revokes pending offers, a venue change tells the attendees.
"""

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import models, transaction
from django.utils import timezone

from common.errors import InvalidInput
from events.core.services import event_fields, event_notifications, event_service
from events.core.services.locks import lock_series
from events.models import Event, EventSeries, Organization, Venue
from events.series.services.series_parts import template_of
from events.waitlist import services as waitlist_service
from events.waitlist.services import settings as waitlist_settings_service

logger = logging.getLogger("encore.series")

#: docs/spec/seed-tables.md: what a template edit may push onto its occurrences.
PROPAGATABLE_FIELDS = frozenset(
    {
        "name",
        "description",
        "visibility",
        "event_type",
        "requires_ticket",
        "max_attendees",
        "venue",
        "visibility_settings",
        "waitlist_open",
        "waitlist_time_window",
        "waitlist_batch_size",
        "waitlist_lottery_mode",
    }
)
PROPAGATION_SCOPES = ("none", "future_unmodified", "all_future")
#: Event.attname of each propagatable field (the venue is compared by id).
_ATTNAMES = {name: ("venue_id" if name == "venue" else name) for name in PROPAGATABLE_FIELDS}


@dataclass(frozen=True)
class TemplateUpdate:
    template: Event
    propagated_event_ids: list[uuid.UUID]


def update_template(
    series: EventSeries, changes: Mapping[str, Any], propagate: str = "none"
) -> TemplateUpdate:
    """Edit the template and, per scope, its future occurrences, all or nothing.

    `none`: the template only (new occurrences pick it up); `future_unmodified`: also
    future occurrences nobody edited; `all_future`: every future occurrence. Each row is
    validated with `full_clean()` and saved on its own; a refusal anywhere rolls the whole
    edit back. A propagated change is not an organiser's edit of the occurrence, so
    `is_modified` stays as it was.
    """
    _check_template_changes(changes, propagate)
    with transaction.atomic():
        locked = lock_series(series.pk)
        template = template_of(locked)
        venue = _resolve_venue(locked.organization, changes)
        targets = _propagation_targets(locked, template, propagate, timezone.now())
        for event in targets:
            _apply_template_changes(event, changes, venue)
    updated_template = next(event for event in targets if event.pk == template.pk)
    propagated = [event.pk for event in targets if event.pk != template.pk]
    logger.info(
        "series template updated",
        extra={"series_id": str(series.pk), "scope": propagate, "propagated": len(propagated)},
    )
    return TemplateUpdate(template=updated_template, propagated_event_ids=propagated)


def _check_template_changes(changes: Mapping[str, Any], propagate: str) -> None:
    if propagate not in PROPAGATION_SCOPES:
        raise InvalidInput({"propagate": [f"Expected one of {', '.join(PROPAGATION_SCOPES)}."]})
    refused = sorted(set(changes) - PROPAGATABLE_FIELDS)
    if refused:
        raise InvalidInput(
            {name: ["This field cannot be changed on a series template."] for name in refused}
        )


def _resolve_venue(organization: Organization, changes: Mapping[str, Any]) -> Venue | None:
    """The organisation's venue for a `venue` change (an id, or None to clear it)."""
    return event_fields.venue_of(organization, changes.get("venue"), field="venue")


def _propagation_targets(
    series: EventSeries, template: Event, scope: str, now: datetime
) -> list[Event]:
    """The template and the occurrences the scope reaches (never a cancelled one), locked
    in pk order."""
    reached = models.Q(pk=template.pk)
    if scope != "none":
        # A cancelled occurrence is history: renaming it would rewrite what people saw.
        future = models.Q(event_series=series, is_template=False, start__gte=now) & ~models.Q(
            status=Event.Status.CANCELLED
        )
        if scope == "future_unmodified":
            future &= models.Q(is_modified=False)
        reached |= future
    return list(
        Event.objects.select_for_update(of=("self",))
        .select_related("organization", "venue")
        .filter(reached)
        .order_by("pk")
    )


def _apply_template_changes(event: Event, changes: Mapping[str, Any], venue: Venue | None) -> None:
    before = {attname: getattr(event, attname) for attname in _ATTNAMES.values()}
    old_capacity = event.effective_capacity
    for name, value in changes.items():
        event_fields.set_field(event, name, venue if name == "venue" else value)
    event.full_clean()
    changed = [attname for attname, value in before.items() if getattr(event, attname) != value]
    if not changed:
        return
    if "requires_ticket" in changed:
        event_service.switch_registration_mode(event)
    event.save(update_fields=[*changed, "updated_at"])
    if event.is_template:
        return
    _after_propagated_change(event, changed, old_capacity, was_open=before["waitlist_open"])


def _after_propagated_change(
    event: Event, changed: list[str], old_capacity: int, *, was_open: bool
) -> None:
    """The event PATCH's trigger rules, for one occurrence (its row is locked)."""
    if event_service.capacity_grew(old_capacity, event.effective_capacity):
        waitlist_service.enqueue_waitlist_processing(event.pk)
    waitlist_settings_service.after_waitlist_settings_change(
        event, was_open=was_open, changed=changed
    )
    if "venue_id" in changed:
        event_notifications.notify_event_updated(event.pk, ["venue_id"])
