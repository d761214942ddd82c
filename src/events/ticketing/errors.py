"""Errors of ticket sales, cancellations and the box office (stable codes, docs/spec/api.md shape)."""

from common.errors import Conflict, EncoreError, NotFound


class UnknownTier(NotFound):
    """The tier does not exist or belongs to another event (docs/spec/api.md: a foreign sub-object is 404)."""

    default_code = "unknown_tier"
    default_detail = "This ticket tier does not exist for this event."


class UnknownUser(NotFound):
    default_code = "unknown_user"
    default_detail = "No such user."


class TicketNotFound(NotFound):
    default_code = "not_found"
    default_detail = "Ticket not found."


class TierNotOnSale(EncoreError):
    default_code = "tier_not_on_sale"
    default_detail = "This ticket tier is not on sale right now."


class TierSoldOut(Conflict):
    """A tier of the cart has fewer tickets left than asked for (`remaining` says how many).

    The code is docs/spec/api.md's `sold_out`, like the eligibility refusal for an event whose
    every tier is exhausted: one code and one status (409) for "no ticket" however it
    was found; `tier_id` and `remaining` tell the two apart.
    """

    default_code = "sold_out"
    default_detail = "Not enough tickets are left in this tier."


class TicketLimitExceeded(EncoreError):
    default_code = "ticket_limit_exceeded"
    default_detail = "This would exceed the number of tickets one person may hold."


class AlreadyCancelled(Conflict):
    default_code = "already_cancelled"
    default_detail = "This ticket is already cancelled."


class TicketCheckedIn(Conflict):
    default_code = "ticket_checked_in"
    default_detail = "A checked-in ticket cannot be cancelled."


class TierHasTickets(Conflict):
    default_code = "tier_has_tickets"
    default_detail = "Tickets were issued in this tier; it cannot be deleted."


class NotPending(Conflict):
    default_code = "not_pending"
    default_detail = "Only a ticket awaiting payment can be confirmed."


class PaymentPending(Conflict):
    default_code = "payment_pending"
    default_detail = "The ticket's payment has not been confirmed yet."


class AlreadyCheckedIn(Conflict):
    default_code = "already_checked_in"
    default_detail = "This ticket is already checked in."


class TicketCancelled(Conflict):
    default_code = "ticket_cancelled"
    default_detail = "This ticket is cancelled."


class OutsideCheckInWindow(EncoreError):
    default_code = "outside_check_in_window"
    default_detail = "Check-in is not open for this event right now."
