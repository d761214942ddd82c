"""Reads behind the organisation routes: visible organisations and series, and the
sub-objects of one organisation (staff rows, members, requests, blacklist entries,
venues).

Every sub-object lookup is scoped to the organisation in the path, so an id that
belongs to another organisation is simply "not found" (docs/spec/api.md: 404).
"""

import uuid

from django.db.models import QuerySet

from common.errors import first_or_not_found
from events.core.selectors.access import AnyUser, visible_organizations
from events.models import (
    Blacklist,
    EventSeries,
    Organization,
    OrganizationMember,
    OrganizationMembershipRequest,
    OrganizationStaff,
    Venue,
)


def get_visible_organization(user: AnyUser, slug: str) -> Organization:
    return first_or_not_found(
        visible_organizations(user).filter(slug=slug), "Organization not found."
    )


def get_visible_series(user: AnyUser, series_id: uuid.UUID) -> EventSeries:
    """A series is visible when its organisation is."""
    series = EventSeries.objects.filter(
        pk=series_id, organization__in=visible_organizations(user)
    ).select_related("organization")
    return first_or_not_found(series, "Event series not found.")


# -- lists -------------------------------------------------------------------------------
def list_staff(organization: Organization) -> QuerySet[OrganizationStaff]:
    return (
        OrganizationStaff.objects.filter(organization=organization)
        .select_related("user")
        .order_by("created_at", "pk")
    )


def list_members(
    organization: Organization, status: str | None = None
) -> QuerySet[OrganizationMember]:
    members = OrganizationMember.objects.filter(organization=organization).select_related("user")
    if status:
        members = members.filter(status=status)
    return members.order_by("created_at", "pk")


def list_membership_requests(
    organization: Organization, status: str | None = None
) -> QuerySet[OrganizationMembershipRequest]:
    requests = OrganizationMembershipRequest.objects.filter(
        organization=organization
    ).select_related("user")
    if status:
        requests = requests.filter(status=status)
    return requests.order_by("-created_at", "pk")


def list_blacklist(organization: Organization) -> QuerySet[Blacklist]:
    return (
        Blacklist.objects.filter(organization=organization)
        .select_related("user")
        .order_by("-created_at", "pk")
    )


def list_venues(organization: Organization) -> QuerySet[Venue]:
    return Venue.objects.filter(organization=organization).order_by("name", "pk")


# -- one sub-object of an organisation ----------------------------------------------------
def get_staff_row(organization: Organization, user_id: uuid.UUID) -> OrganizationStaff:
    return first_or_not_found(
        list_staff(organization).filter(user_id=user_id), "Staff member not found."
    )


def get_member(organization: Organization, user_id: uuid.UUID) -> OrganizationMember:
    return first_or_not_found(
        list_members(organization).filter(user_id=user_id), "Member not found."
    )


def get_membership_request(
    organization: Organization, request_id: uuid.UUID
) -> OrganizationMembershipRequest:
    return first_or_not_found(
        list_membership_requests(organization).filter(pk=request_id),
        "Membership request not found.",
    )


def get_blacklist_entry(organization: Organization, entry_id: uuid.UUID) -> Blacklist:
    return first_or_not_found(
        list_blacklist(organization).filter(pk=entry_id), "Blacklist entry not found."
    )


def get_venue(organization: Organization, venue_id: uuid.UUID) -> Venue:
    return first_or_not_found(list_venues(organization).filter(pk=venue_id), "Venue not found.")
