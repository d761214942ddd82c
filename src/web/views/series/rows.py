"""The occurrence rows of the organiser's series page, prepared once in Python.

A series page can list a year of dates (156 for three a week); formatting each in the
template (`in_zone`, one include per state) costs more than the page's budget
(docs/spec/quality.md h3), so the view formats them here with
`common.human_time.human_formatter` (`format_human` with the layout read once).
"""

from collections.abc import Iterable
from typing import TypedDict

from django.utils.translation import gettext, pgettext

from common.human_time import human_formatter
from common.timezones import get_zone
from events.models import Event


class Row(TypedDict):
    """A dict, not an object: the template's first lookup (`row.iso`) then hits."""

    href: str
    name: str
    iso: str
    #: The local date in the rows' zone ("Split from here" starts on it).
    day: str
    when: str
    state: str
    cancelled: bool
    refusal: str


def state_labels() -> dict[str, str]:
    return {
        Event.Status.DRAFT: pgettext("event status", "Draft"),
        Event.Status.OPEN: pgettext("event status", "Open"),
        Event.Status.CLOSED: pgettext("event status", "Closed"),
        Event.Status.CANCELLED: pgettext("event status", "Cancelled"),
    }


def occurrence_rows(
    events: Iterable[Event], zone_name: str, refusal: tuple[str, str] = ("", "")
) -> list[Row]:
    """`refusal`: (the ISO start of the refused date, the reason shown in its row)."""
    when = human_formatter(zone_name)
    zone = get_zone(zone_name)
    labels = state_labels()
    modified = gettext("modified")
    rows = []
    for event in events:
        state = labels.get(str(event.status), str(event.status))
        if event.is_modified:
            state = f"{state}, {modified}"
        rows.append(
            Row(
                href=f"/events/{event.pk}",
                name=event.name,
                iso=event.start.isoformat(),
                day=event.start.astimezone(zone).date().isoformat(),
                when=when(event.start),
                state=state,
                cancelled=event.status == Event.Status.CANCELLED,
                refusal="",
            )
        )
    refused_iso, reason = refusal
    if reason:
        rows = [
            Row(**{**row, "refusal": reason}) if row["iso"] == refused_iso else row for row in rows
        ]
    return rows
