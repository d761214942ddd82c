"""Times as people read them, in the active language: a date and time in a zone, and
"in 23 minutes" for a deadline.

Run under `django.utils.translation.override(language)`: day and month names come from
Django's own translations (German "Dienstag", "Dezember"), the layout of a date from
Encore's catalogue, so English reads "Tue 3 Mar 2026, 19:00 CET" (the format of
`common.timezones.format_in_zone`) and German "Dienstag, 3. März 2026, 19:00 CET".
E-mails, in-app notifications and the web pages all use these, so a time reads the same
everywhere.
"""

from collections.abc import Callable
from datetime import datetime, timedelta
from functools import lru_cache

from django.utils import dates, formats
from django.utils.translation import get_language, gettext, ngettext, pgettext

from common.timezones import get_zone

_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR


def format_human(moment: datetime, zone_name: str) -> str:
    """Wall-clock `moment` in `zone_name` with the zone's abbreviation, in the active language."""
    return human_formatter(zone_name)(moment)


def human_formatter(zone_name: str) -> Callable[[datetime], str]:
    """`format_human` for moments in one zone, in the active language.

    Why not Django's `date_format` each time: a page of a year of dates (the series
    page, docs/spec/quality.md h3) or of fifty deadlines spent more on re-reading the layout and
    re-translating its day and month names for every moment than on anything else it
    formats. The layout is read once per language and zone (`_layout_formatter`).
    """
    # Translators: a Django date format (docs "date" filter) for a date and time in e-mails.
    layout = pgettext("human date and time", "D j M Y, H:i")
    return _layout_formatter(get_language(), layout, zone_name)


#: The layout characters `human_formatter` writes itself, as Django's `DateFormat` does
#: (`django.utils.dateformat`); a layout with any other one goes to `date_format`.
_PARTS: dict[str, Callable[[datetime, dict[str, list[str]]], str]] = {
    "D": lambda local, names: names["weekdays_abbr"][local.weekday()],
    "l": lambda local, names: names["weekdays"][local.weekday()],
    "j": lambda local, names: str(local.day),
    "d": lambda local, names: f"{local.day:02d}",
    "M": lambda local, names: names["months_3"][local.month],
    "F": lambda local, names: names["months"][local.month],
    "Y": lambda local, names: f"{local.year:04d}",
    "G": lambda local, names: str(local.hour),
    "H": lambda local, names: f"{local.hour:02d}",
    "i": lambda local, names: f"{local.minute:02d}",
}


@lru_cache(maxsize=512)
def _layout_formatter(
    language: str | None, layout: str, zone_name: str
) -> Callable[[datetime], str]:
    """The formatter of one layout in one zone; `language` keys the cache (the names are
    translated into the language active when it is built, which is `language`)."""
    zone = get_zone(zone_name)
    parts = _parsed(layout)
    if parts is None:

        def by_django(moment: datetime) -> str:
            local = moment.astimezone(zone)
            return f"{formats.date_format(local, layout)} {local.tzname()}"

        return by_django
    names = {
        "weekdays_abbr": [str(dates.WEEKDAYS_ABBR[day]) for day in range(7)],
        "weekdays": [str(dates.WEEKDAYS[day]) for day in range(7)],
        "months_3": [""] + [str(dates.MONTHS_3[month]).title() for month in range(1, 13)],
        "months": [""] + [str(dates.MONTHS[month]) for month in range(1, 13)],
    }

    def format_moment(moment: datetime) -> str:
        local = moment.astimezone(zone)
        text = "".join(part if isinstance(part, str) else part(local, names) for part in parts)
        return f"{text} {local.tzname()}"

    return format_moment


def _parsed(layout: str) -> list[str | Callable[[datetime, dict[str, list[str]]], str]] | None:
    """The layout as literal text and parts, or None when it uses a character the parts
    do not cover. A backslash makes the next character literal, as in Django."""
    parts: list[str | Callable[[datetime, dict[str, list[str]]], str]] = []
    escaped = False
    for char in layout:
        if escaped:
            parts.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in _PARTS:
            parts.append(_PARTS[char])
        elif char.isalpha():
            return None
        else:
            parts.append(char)
    return parts


def humanize_time_remaining(delta: timedelta) -> str:
    """'in 23 hours' style, rounded down so a deadline is never overstated.

    Under an hour → minutes, under two days → hours, else days.
    """
    seconds = int(delta.total_seconds())
    if seconds <= 0:
        return gettext("now")
    if seconds < _MINUTE:
        return gettext("in less than a minute")
    if seconds < _HOUR:
        minutes = seconds // _MINUTE
        return ngettext("in %(count)d minute", "in %(count)d minutes", minutes) % {"count": minutes}
    if seconds < 2 * _DAY:
        hours = seconds // _HOUR
        return ngettext("in %(count)d hour", "in %(count)d hours", hours) % {"count": hours}
    days = seconds // _DAY
    return ngettext("in %(count)d day", "in %(count)d days", days) % {"count": days}


def humanize_until(moment: datetime, now: datetime) -> str:
    """How long from `now` until `moment`, e.g. for a countdown's text ("in 23 minutes")."""
    return humanize_time_remaining(moment - now)
