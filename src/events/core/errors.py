"""Domain errors of events and their status, mapped to HTTP by common.api.

A refusal of the eligibility pipeline is `events.eligibility.refusals.EligibilityRefused`:
it carries the pipeline's answer, so it lives beside it.
"""

from common.errors import Conflict


class HasAttendees(Conflict):
    default_code = "has_attendees"
    default_detail = "The event has tickets or RSVPs and cannot be deleted."


class InvalidTransition(Conflict):
    default_code = "invalid_status_transition"
    default_detail = "The event cannot move to that status from its current one."
