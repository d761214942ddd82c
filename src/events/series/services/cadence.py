"""Cadence changes: a partial edit of the recurrence rule and the series switches.

A changed schedule field or window resets the generation cursor, so the next pass
rescans from `max(dtstart, now)`: a shrunk window cannot stall, a grown one or a new
cadence backfills. Occurrences already materialised keep their dates (see `drift`).

`check_rule_fields` is the one gate for rule input: creation (`lifecycle`) and this
edit refuse the same unknown fields; `RecurrenceRule.clean()` normalises and validates
the values for both.
"""

import logging
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from common.errors import InvalidInput
from events.core.services.locks import lock_series
from events.models import EventSeries, RecurrenceRule
from events.series.models import SCHEDULE_FIELDS
from events.series.services.series_parts import rule_of

logger = logging.getLogger("encore.series")


def check_rule_fields(fields: Mapping[str, Any]) -> None:
    """Only the schedule fields of a recurrence rule may be given (400 otherwise)."""
    unknown = sorted(set(fields) - set(SCHEDULE_FIELDS))
    if unknown:
        raise InvalidInput({name: ["Not a field of the recurrence rule."] for name in unknown})


def update_series_recurrence(
    series: EventSeries,
    rule_changes: Mapping[str, Any],
    auto_publish: bool | None = None,
    generation_window_weeks: int | None = None,
) -> EventSeries:
    """Apply partial changes to the rule and the series (a refused value writes nothing);
    the module docstring says what a schedule or window change does to the cursor."""
    check_rule_fields(rule_changes)
    with transaction.atomic():
        locked = lock_series(series.pk)
        rule = rule_of(locked)
        schedule_changed = _apply_rule_changes(rule, rule_changes)
        changed = []
        if auto_publish is not None and auto_publish != locked.auto_publish:
            locked.auto_publish = auto_publish
            changed.append("auto_publish")
        window_changed = False
        if (
            generation_window_weeks is not None
            and generation_window_weeks != locked.generation_window_weeks
        ):
            locked.generation_window_weeks = generation_window_weeks
            changed.append("generation_window_weeks")
            window_changed = True
        if schedule_changed or window_changed:
            locked.last_generated_until = None
            changed.append("last_generated_until")
        if changed:
            locked.full_clean(exclude=["recurrence_rule", "template_event"])
            locked.save(update_fields=[*changed, "updated_at"])
    logger.info(
        "series recurrence updated",
        extra={"series_id": str(series.pk), "schedule_changed": schedule_changed},
    )
    return locked


def _apply_rule_changes(rule: RecurrenceRule, changes: Mapping[str, Any]) -> bool:
    """Set, validate and save the rule; True when the schedule really changed."""
    before = rule.schedule()
    for name, value in changes.items():
        setattr(rule, name, value)
    rule.full_clean()
    if rule.schedule() == before:
        return False
    rule.save()
    return True
