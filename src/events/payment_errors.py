"""Errors of online payment (stable codes in the docs/spec/api.md error shape)."""

from common.errors import Conflict, EncoreError


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
