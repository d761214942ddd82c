from events.models.event import Event
from events.models.event_series import EventSeries, EventSeriesFollow, EventSeriesSlug
from events.models.invitation import Invitation
from events.models.organization import (
    Blacklist,
    Organization,
    OrganizationFollow,
    OrganizationMember,
    OrganizationMembershipRequest,
    OrganizationStaff,
    StaffPermission,
)
from events.models.payment import Payment, PaymentRefund, StripeConnection, StripeEvent
from events.models.recurrence_rule import RecurrenceRule
from events.models.rsvp import EventRSVP
from events.models.ticket import Ticket, TicketTier
from events.models.venue import Venue
from events.models.waitlist import EventWaitList, WaitlistOffer
from events.models.waitlist_history import WaitlistDraw, WaitlistQueueSample

__all__ = [
    "Blacklist",
    "Event",
    "EventRSVP",
    "EventSeries",
    "EventSeriesFollow",
    "EventSeriesSlug",
    "EventWaitList",
    "Invitation",
    "Organization",
    "OrganizationFollow",
    "OrganizationMember",
    "OrganizationMembershipRequest",
    "OrganizationStaff",
    "Payment",
    "PaymentRefund",
    "RecurrenceRule",
    "StaffPermission",
    "StripeConnection",
    "StripeEvent",
    "Ticket",
    "TicketTier",
    "Venue",
    "WaitlistDraw",
    "WaitlistOffer",
    "WaitlistQueueSample",
]
