"""Why a user may not be deleted yet, from the events side (accounts.errors family)."""

from accounts.errors import UserDeletionRefused


class HasPaidTickets(UserDeletionRefused):
    """Paid, unused money is at stake: refund or cancel the tickets first (ADR 0013)."""

    default_code = "has_paid_tickets"
    default_detail = "This user holds paid tickets: refund or cancel them first."


class OwnsOrganizations(UserDeletionRefused):
    """`Organization.owner` is PROTECT: an organisation never loses its owner silently."""

    default_code = "owns_organizations"
    default_detail = "This user owns organisations: give them another owner first."
