"""Domain errors of the core (events, RSVPs, departures) and their status, mapped to
HTTP by common.api.

A refusal of the eligibility pipeline is `events.core.eligibility.refusals.EligibilityRefused`:
it carries the pipeline's answer, so it lives beside it. Checking an RSVP attendee in
outside the window answers the ticket check-in's `OutsideCheckInWindow`
(`events.ticketing.errors`, 400 `outside_check_in_window`); `already_checked_in` is the
ticket check-in's code for the same case. Why a user may not be deleted yet, from the
events side, extends the `accounts.errors` family.
"""

from accounts.errors import UserDeletionRefused
from common.errors import Conflict


class HasAttendees(Conflict):
    default_code = "has_attendees"
    default_detail = "The event has tickets or RSVPs and cannot be deleted."


class InvalidTransition(Conflict):
    default_code = "invalid_status_transition"
    default_detail = "The event cannot move to that status from its current one."


class NotAttending(Conflict):
    default_code = "not_attending"
    default_detail = "Only someone who answered yes can be checked in."


class RSVPAlreadyCheckedIn(Conflict):
    default_code = "already_checked_in"
    default_detail = "This attendee is already checked in."


class HasPaidTickets(UserDeletionRefused):
    """Paid, unused money is at stake: refund or cancel the tickets first (ADR 0013)."""

    default_code = "has_paid_tickets"
    default_detail = "This user holds paid tickets: refund or cancel them first."


class OwnsOrganizations(UserDeletionRefused):
    """`Organization.owner` is PROTECT: an organisation never loses its owner silently."""

    default_code = "owns_organizations"
    default_detail = "This user owns organisations: give them another owner first."
