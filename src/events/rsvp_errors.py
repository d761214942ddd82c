"""Errors of checking an RSVP attendee in (stable codes, docs/spec/api.md shape).

`already_checked_in` is the ticket check-in's code for the same case; outside the
window both answer `ticket_errors.OutsideCheckInWindow` (400 `outside_check_in_window`).
"""

from common.errors import Conflict


class NotAttending(Conflict):
    default_code = "not_attending"
    default_detail = "Only someone who answered yes can be checked in."


class RSVPAlreadyCheckedIn(Conflict):
    default_code = "already_checked_in"
    default_detail = "This attendee is already checked in."
