from events.core.models.event import Event
from events.core.models.image import StoredImage
from events.core.models.invitation import Invitation
from events.core.models.organization import (
    Blacklist,
    Organization,
    OrganizationFollow,
    OrganizationMember,
    OrganizationMembershipRequest,
    OrganizationStaff,
    StaffPermission,
)
from events.core.models.rsvp import EventRSVP
from events.core.models.venue import Venue
from events.models.event_series import EventSeries, EventSeriesFollow, EventSeriesSlug
from events.models.recurrence_rule import RecurrenceRule
from events.ticketing.models.payment import Payment, PaymentRefund, StripeConnection, StripeEvent
from events.ticketing.models.ticket import Ticket, TicketTier
from events.waitlist.models.waitlist import EventWaitList, WaitlistOffer
from events.waitlist.models.waitlist_history import WaitlistDraw, WaitlistQueueSample

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
    "StoredImage",
    "StripeConnection",
    "StripeEvent",
    "Ticket",
    "TicketTier",
    "Venue",
    "WaitlistDraw",
    "WaitlistOffer",
    "WaitlistQueueSample",
]
