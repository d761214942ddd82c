"""Slugs of events, series occurrences and series: one length rule, one way to a free slug.

An event slug is `<base>`, then `<base>-YYYY-MM-DD` (the local start date), then that
with a short random suffix (docs/spec/domain.md, docs/spec/seed-tables.md "Slugs"); an occurrence starts at
the dated form of its template's slug, a series at its name's slug. Each of them asks
`free_slug` for the first candidate nobody holds. The base is cut so that the longest
form still fits the column: `SLUG_BASE_MAX` + "-YYYY-MM-DD-xxxxxx" = the 220 characters
of `Event.slug`, for one-off events and occurrences alike.
"""

import secrets
from collections.abc import Collection
from datetime import datetime

from django.db import models
from django.utils.text import slugify

from common.timezones import get_zone
from events.models import Event, EventSeries

#: "-YYYY-MM-DD", the date a taken event slug falls back to.
DATE_PART_LENGTH = len("-2000-01-01")
#: "-" and six hex digits: 16^6 possibilities make a second draw practically never needed.
SUFFIX_HEX_BYTES = 3
SUFFIX_LENGTH = 1 + 2 * SUFFIX_HEX_BYTES


def _column_length(model: type[models.Model], name: str) -> int:
    column = model._meta.get_field(name)
    assert isinstance(column, models.Field) and isinstance(column.max_length, int)
    return column.max_length


#: The longest base of an event or occurrence slug: room for the date and the suffix.
SLUG_BASE_MAX = _column_length(Event, "slug") - DATE_PART_LENGTH - SUFFIX_LENGTH
#: A series slug is never longer than its name may be; its 160-character column keeps
#: room for the suffix (series slugs carry no date).
SERIES_SLUG_BASE_MAX = _column_length(EventSeries, "name")


def slug_base(text: str, fallback: str, max_length: int = SLUG_BASE_MAX) -> str:
    """The slug of `text`, cut to `max_length`; `fallback` when nothing Latin is left."""
    return slugify(text)[:max_length].strip("-") or fallback


def dated_slug(base: str, start: datetime, zone_name: str) -> str:
    """`<base>-YYYY-MM-DD`, the date of `start` in `zone_name` (the base cut to fit)."""
    local_day = start.astimezone(get_zone(zone_name)).date()
    return f"{base[:SLUG_BASE_MAX].strip('-')}-{local_day.isoformat()}"


def suffixed(slug: str) -> str:
    return f"{slug}-{secrets.token_hex(SUFFIX_HEX_BYTES)}"


def free_slug(*candidates: str, taken: Collection[str]) -> str:
    """The first candidate not in `taken`, else the last one with a random suffix that
    is not in `taken` either (the caller read `taken` in one query)."""
    for candidate in candidates:
        if candidate not in taken:
            return candidate
    suffixed_candidate = suffixed(candidates[-1])
    while suffixed_candidate in taken:  # pragma: no cover - 16^6 possibilities
        suffixed_candidate = suffixed(candidates[-1])
    return suffixed_candidate
