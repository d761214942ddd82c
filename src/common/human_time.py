"""Times as people read them, in the active language: a date and time in a zone, and
"in 23 minutes" for a deadline.

Run under `django.utils.translation.override(language)`: day and month names come from
Django's own translations (German "Dienstag", "Dezember"), the layout of a date from
Encore's catalogue, so English reads "Tue 3 Mar 2026, 19:00 CET" (the format of
`common.timezones.format_in_zone`) and German "Dienstag, 3. März 2026, 19:00 CET".
E-mails, in-app notifications and the web pages all use these, so a time reads the same
everywhere.
"""

from datetime import datetime, timedelta

from django.utils import formats
from django.utils.translation import gettext, ngettext, pgettext

from common.timezones import get_zone

_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR


def format_human(moment: datetime, zone_name: str) -> str:
    """Wall-clock `moment` in `zone_name` with the zone's abbreviation, in the active language."""
    local = moment.astimezone(get_zone(zone_name))
    # Translators: a Django date format (docs "date" filter) for a date and time in e-mails.
    layout = pgettext("human date and time", "D j M Y, H:i")
    return f"{formats.date_format(local, layout)} {local.tzname()}"


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
