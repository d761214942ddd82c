"""The configuration of the active waitlist: PATCH /event-admin/{id}/waitlist-settings.

Two rules live here and the event PATCH (`event_service.update_event`) follows the
same ones (docs/spec/seed-tables.md "Closing by any path" and "Trigger sites"):

- closing the queue (`waitlist_open` True → False) revokes every pending offer with
  `waitlist_closed`, in the same transaction; the users stay eligible for later passes;
- a change that may allow a batch now (the queue reopened; window, batch size or cutoff
  changed, which includes turning the active mode on) enqueues one processing pass on
  commit. Lottery mode alone never does: it changes who, not whether.
"""

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from common.errors import InvalidInput, NotFound
from events.core.services.locks import lock_event
from events.models import Event, WaitlistOffer
from events.waitlist import services as waitlist_service

logger = logging.getLogger("encore.waitlist")

#: The Event fields that configure the active waitlist (docs/spec/seed-tables.md, and the party
#: settings of issue 12), the fields of `WaitlistSettingsSchema`.
WAITLIST_SETTINGS_FIELDS = (
    "waitlist_open",
    "waitlist_time_window",
    "waitlist_batch_size",
    "waitlist_cutoff_date",
    "waitlist_lottery_mode",
    "waitlist_max_party_size",
    "waitlist_party_policy",
)
#: Settings whose change may let a batch go out at once (the queue reopening aside):
#: `fill` lets smaller parties take seats a `strict` queue left waiting for its head.
#: The largest party only bounds who may join, so it never does.
BATCH_SETTINGS = (
    "waitlist_time_window",
    "waitlist_batch_size",
    "waitlist_cutoff_date",
    "waitlist_party_policy",
)


def update_waitlist_settings(event_id: uuid.UUID, data: Mapping[str, Any]) -> Event:
    """Apply the settings sent, under the Event lock; a refused value writes nothing.

    `Event.full_clean()` checks the seed's rules against the whole row (window 1 h..7 d,
    cutoff needs a window and lies strictly before the start): a violation is a 400 with
    field errors. A changed series occurrence is marked `is_modified`, as by the event
    PATCH, so propagation from its template does not undo the organiser's choice.
    """
    unknown = sorted(set(data) - set(WAITLIST_SETTINGS_FIELDS))
    if unknown:
        raise InvalidInput({name: ["Not a waitlist setting."] for name in unknown})
    with transaction.atomic():
        try:
            event = lock_event(event_id)
        except Event.DoesNotExist as error:
            raise NotFound("Event not found.") from error
        before = {name: getattr(event, name) for name in WAITLIST_SETTINGS_FIELDS}
        for name, value in data.items():
            setattr(event, name, value)
        event.full_clean()
        changed = [
            name for name in WAITLIST_SETTINGS_FIELDS if getattr(event, name) != before[name]
        ]
        if not changed:
            return event
        event.save_organiser_edit(changed)
        after_waitlist_settings_change(event, was_open=before["waitlist_open"], changed=changed)
    logger.info("waitlist settings changed", extra={"event_id": str(event.pk), "fields": changed})
    return event


def after_waitlist_settings_change(event: Event, *, was_open: bool, changed: list[str]) -> None:
    """The close and trigger rules, inside the caller's transaction (Event row locked)."""
    if was_open and not event.waitlist_open:
        close_waitlist(event)
    if may_allow_a_batch(event, was_open=was_open, changed=changed):
        waitlist_service.enqueue_waitlist_processing(event.pk)


def may_allow_a_batch(event: Event, *, was_open: bool, changed: list[str]) -> bool:
    """seed-tables "Trigger sites": reopened, or window, batch size or cutoff changed."""
    reopened = event.waitlist_open and not was_open
    return reopened or any(name in changed for name in BATCH_SETTINGS)


def close_waitlist(event: Event) -> int:
    """Closing the queue by any path: pending offers → REVOKED (`waitlist_closed`).

    A system revocation: the users keep their place and a later pass, once the queue is
    reopened, may offer them a seat again (only an organiser's revoke soft-skips).
    """
    revoked = waitlist_service.revoke_pending_offers(
        event, WaitlistOffer.RevokedReason.WAITLIST_CLOSED
    )
    if revoked:
        logger.info(
            "waitlist closed: pending offers revoked",
            extra={"event_id": str(event.pk), "revoked": revoked},
        )
    return revoked
