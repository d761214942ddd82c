"""Helpers for senders that build a notification context.

Every human time about an event is formatted in the **event's** timezone with its
abbreviation (docs/spec/domain.md, "Notifications"); times not tied to one event use the user's
timezone. Senders store English values built with `format_in_zone` next to the ISO
time::

    context["event_start"] = event.start.isoformat()
    context["event_start_formatted"] = format_in_zone(event.start, event_timezone)
    # -> "Tue 3 Mar 2026, 19:00 CET"

and `humanize_time_remaining` for the "in 23 hours" phrasing of a deadline. One context
serves every recipient of a fan-out, so the words are made in the recipient's language at
render time (`notifications.localized`): a `X_formatted` key next to an ISO `X` and the
zone (`event_timezone`) is formatted again with `common.human_time.format_human`, and
`time_remaining_seconds` gives `time_remaining_formatted`. Templates show the
`*_formatted` values as given and never convert times themselves.
"""

from common.human_time import format_human, humanize_time_remaining, humanize_until
from common.timezones import format_in_zone

__all__ = ["format_human", "format_in_zone", "humanize_time_remaining", "humanize_until"]
