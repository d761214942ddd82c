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


class PaymentsNotConfigured(Conflict):
    """The tier asks for online payment but the organisation has no usable Stripe account
    (or the platform has no Stripe key): nothing is sold rather than seats held for a
    payment nobody can take."""

    default_code = "payments_not_configured"
    default_detail = "Online payment is not set up for this organisation."


class PaymentProviderUnavailable(EncoreError):
    """Stripe refused or could not be reached; nothing was sold or refunded."""

    status_code = 502
    default_code = "payment_provider_unavailable"
    default_detail = "The payment provider could not be reached; nothing was charged."


class InvalidStripeAccount(EncoreError):
    default_code = "invalid_stripe_account"
    default_detail = "Stripe does not know this account, or it cannot take payments yet."


class InvalidSignature(EncoreError):
    default_code = "invalid_signature"
    default_detail = "The Stripe signature of this request is missing or wrong."


class PaymentNotSettled(Conflict):
    default_code = "payment_pending"
    default_detail = "The ticket's payment has not been confirmed yet."


class RefundNotAllowed(Conflict):
    default_code = "refund_not_allowed"
    default_detail = "This ticket's tier does not allow refunds by its holder."


class RefundDeadlinePassed(Conflict):
    default_code = "refund_deadline_passed"
    default_detail = "The refund deadline of this ticket's tier has passed."


class NothingToRefund(Conflict):
    default_code = "nothing_to_refund"
    default_detail = "This ticket's price is already refunded, or a refund is under way."


class PaidOnline(Conflict):
    """A holder gives an online ticket back through a refund, so money and seat move
    together; a plain cancel would free the seat and keep the money."""

    default_code = "paid_online"
    default_detail = "Tickets paid online are given back through a refund."
