"""The stored context with its human times in the active language, for the templates.

A context is built once per fan-out and stores English words (`*_formatted`, see
`notifications.service.formatting`). At render time, under the recipient's language,
each `X_formatted` next to an ISO `X` is formatted again in the context's zone
(`event_timezone`, or an occurrence's `timezone`), and `time_remaining_seconds` becomes
`time_remaining_formatted`. A context without them (stored before these keys existed)
keeps its stored words.
"""

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from common.human_time import format_human, humanize_time_remaining

_SUFFIX = "_formatted"


def localized(context: Mapping[str, Any], zone: str | None = None) -> dict[str, Any]:
    """A copy of `context` whose human times are in the active language."""
    values = dict(context)
    zone = values.get("event_timezone") or values.get("timezone") or zone
    if zone:
        for key, value in context.items():
            if key.endswith(_SUFFIX) and isinstance(value, str):
                moment = _parse(context.get(key[: -len(_SUFFIX)]))
                if moment is not None:
                    values[key] = format_human(moment, zone)
    seconds = context.get("time_remaining_seconds")
    if isinstance(seconds, int):
        values["time_remaining_formatted"] = humanize_time_remaining(timedelta(seconds=seconds))
    occurrences = context.get("occurrences")
    if isinstance(occurrences, list):
        values["occurrences"] = [
            localized(item, zone) if isinstance(item, Mapping) else item for item in occurrences
        ]
    return values


def _parse(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None
