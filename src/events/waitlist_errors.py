"""Errors of joining and leaving the waitlist (stable codes, api.md shape)."""

from common.errors import Conflict, EncoreError


class WaitlistClosed(EncoreError):
    default_code = "waitlist_closed"
    default_detail = "The waitlist of this event is not open."


class AlreadyAttending(Conflict):
    default_code = "already_attending"
    default_detail = "You are already attending this event."


class CapacityAvailable(Conflict):
    default_code = "capacity_available"
    default_detail = "There is room at this event: register instead of joining the waitlist."
