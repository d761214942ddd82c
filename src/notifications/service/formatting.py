"""Helpers for senders that build a notification context.

Every human time about an event is formatted in the **event's** timezone with its
abbreviation (domain.md, "Notifications"); times not tied to one event use the user's
timezone. Use `format_in_zone` (re-exported from `common.timezones`)::

    context["event_start_formatted"] = format_in_zone(event.start, event_timezone)
    # -> "Tue 3 Mar 2026, 19:00 CET"

and `humanize_time_remaining` for the "in 23 hours" phrasing of a deadline. Both run in the
sender, under `django.utils.translation.override(user.language)` when the words should be
in the recipient's language; templates show the `*_formatted` values as given and never
convert times themselves.
"""

from datetime import timedelta

from django.utils.translation import gettext, ngettext

from common.timezones import format_in_zone

__all__ = ["format_in_zone", "humanize_time_remaining"]

_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR


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
