"""Everything Encore holds about one person: the "Download my data" export.

Each app answers for its own rows (`accounts.personal_data`,
`notifications.selectors.personal_data`); this module adds the events side and
composes them, because events is the lowest app allowed to import both others. The
result is plain JSON values, one list per kind of row, scoped to the person: nothing
of another attendee (names, e-mails, queue neighbours) is ever included.

Left out on purpose: the password hash and refresh tokens (secrets, not information
about the person), and blacklist entries (an organisation's own note about them).
"""

from datetime import datetime
from typing import Any

from django.utils import timezone

from accounts.models import User
from accounts.personal_data import profile_of
from events.models import (
    EventRSVP,
    EventSeriesFollow,
    EventWaitList,
    Invitation,
    Organization,
    OrganizationFollow,
    OrganizationMember,
    OrganizationMembershipRequest,
    OrganizationStaff,
    Ticket,
    WaitlistOffer,
)
from notifications.selectors.personal_data import notifications_of, preferences_of

FORMAT_VERSION = 1


def personal_data(user: User) -> dict[str, Any]:
    """The whole export; one query per kind of row, whatever their number."""
    return {
        "format_version": FORMAT_VERSION,
        "exported_at": timezone.now().isoformat(),
        "profile": profile_of(user),
        "rsvps": _rsvps(user),
        "tickets": _tickets(user),
        "waitlist_entries": _waitlist_entries(user),
        "waitlist_offers": _waitlist_offers(user),
        "invitations": _invitations(user),
        "owned_organizations": _owned_organizations(user),
        "staff_roles": _staff_roles(user),
        "memberships": _memberships(user),
        "membership_requests": _membership_requests(user),
        "organization_follows": _organization_follows(user),
        "series_follows": _series_follows(user),
        "notifications": notifications_of(user),
        "notification_preferences": preferences_of(user),
    }


def _event(event: Any) -> dict[str, Any]:
    return {"id": str(event.pk), "name": event.name, "start": _iso(event.start)}


def _organization(organization: Organization) -> dict[str, Any]:
    return {"id": str(organization.pk), "name": organization.name, "slug": organization.slug}


def _rsvps(user: User) -> list[dict[str, Any]]:
    rows = EventRSVP.objects.filter(user=user).select_related("event").order_by("created_at")
    return [
        {
            "event": _event(row.event),
            "status": row.status,
            "checked_in_at": _iso(row.checked_in_at),
            "created_at": _iso(row.created_at),
        }
        for row in rows
    ]


def _tickets(user: User) -> list[dict[str, Any]]:
    rows = Ticket.objects.filter(user=user).select_related("event", "tier").order_by("created_at")
    return [
        {
            "id": str(row.pk),
            "event": _event(row.event),
            "tier": row.tier.name,
            "price": str(row.tier.price),
            "status": row.status,
            "holder_name": row.holder_name,
            "paid_at": _iso(row.paid_at),
            "checked_in_at": _iso(row.checked_in_at),
            "cancelled_at": _iso(row.cancelled_at),
            "cancellation_reason": row.cancellation_reason,
            "created_at": _iso(row.created_at),
        }
        for row in rows
    ]


def _waitlist_entries(user: User) -> list[dict[str, Any]]:
    rows = EventWaitList.objects.filter(user=user).select_related("event").order_by("created_at")
    return [
        {
            "event": _event(row.event),
            "joined_at": _iso(row.created_at),
            "last_offer_expired_at": _iso(row.last_offer_expired_at),
        }
        for row in rows
    ]


def _waitlist_offers(user: User) -> list[dict[str, Any]]:
    rows = WaitlistOffer.objects.filter(user=user).select_related("event").order_by("created_at")
    return [
        {
            "event": _event(row.event),
            "status": row.status,
            "expires_at": _iso(row.expires_at),
            "claimed_at": _iso(row.claimed_at),
            "revoked_reason": row.revoked_reason,
            "created_at": _iso(row.created_at),
        }
        for row in rows
    ]


def _invitations(user: User) -> list[dict[str, Any]]:
    rows = Invitation.objects.filter(user=user).select_related("event").order_by("created_at")
    return [{"event": _event(row.event), "created_at": _iso(row.created_at)} for row in rows]


def _owned_organizations(user: User) -> list[dict[str, Any]]:
    return [_organization(row) for row in Organization.objects.filter(owner=user).order_by("name")]


def _staff_roles(user: User) -> list[dict[str, Any]]:
    rows = OrganizationStaff.objects.filter(user=user).select_related("organization")
    return [
        {"organization": _organization(row.organization), "permissions": row.permissions}
        for row in rows.order_by("created_at")
    ]


def _memberships(user: User) -> list[dict[str, Any]]:
    rows = OrganizationMember.objects.filter(user=user).select_related("organization")
    return [
        {
            "organization": _organization(row.organization),
            "status": row.status,
            "since": _iso(row.created_at),
        }
        for row in rows.order_by("created_at")
    ]


def _membership_requests(user: User) -> list[dict[str, Any]]:
    rows = OrganizationMembershipRequest.objects.filter(user=user).select_related("organization")
    return [
        {
            "organization": _organization(row.organization),
            "status": row.status,
            "message": row.message,
            "created_at": _iso(row.created_at),
            "decided_at": _iso(row.decided_at),
        }
        for row in rows.order_by("created_at")
    ]


def _organization_follows(user: User) -> list[dict[str, Any]]:
    rows = OrganizationFollow.objects.filter(user=user).select_related("organization")
    return [
        {
            "organization": _organization(row.organization),
            "notify_new_events": row.notify_new_events,
            "is_archived": row.is_archived,
        }
        for row in rows.order_by("created_at")
    ]


def _series_follows(user: User) -> list[dict[str, Any]]:
    rows = EventSeriesFollow.objects.filter(user=user).select_related("event_series__organization")
    return [
        {
            "series": {
                "id": str(row.event_series.pk),
                "name": row.event_series.name,
                "organization": _organization(row.event_series.organization),
            },
            "notify_new_events": row.notify_new_events,
            "is_archived": row.is_archived,
        }
        for row in rows.order_by("created_at")
    ]


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
