"""Reads behind the organisation routes: visible organisations and series, and the
sub-objects of one organisation (staff rows, members, requests, blacklist entries,
venues).

Every sub-object lookup is scoped to the organisation in the path, so an id that
belongs to another organisation is simply "not found" (api.md: 404).
"""

import uuid

from django.db.models import QuerySet

from accounts.models import User
from common.errors import InvalidInput, NotFound
from events.models import (
    Blacklist,
    EventSeries,
    Organization,
    OrganizationMember,
    OrganizationMembershipRequest,
    OrganizationStaff,
    Venue,
)
from events.selectors.access import AnyUser, visible_organizations


def get_visible_organization(user: AnyUser, slug: str) -> Organization:
    organization = visible_organizations(user).filter(slug=slug).first()
    if organization is None:
        raise NotFound("Organization not found.")
    return organization


def get_visible_series(user: AnyUser, series_id: uuid.UUID) -> EventSeries:
    """A series is visible when its organisation is."""
    series = (
        EventSeries.objects.filter(pk=series_id, organization__in=visible_organizations(user))
        .select_related("organization")
        .first()
    )
    if series is None:
        raise NotFound("Event series not found.")
    return series


def user_from_input(user_id: uuid.UUID, field: str = "user_id") -> User:
    """Resolve a user id sent in a request body; an unknown id is a field error (400)."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise InvalidInput({field: ["No user with this id."]})
    return user


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
    staff = list_staff(organization).filter(user_id=user_id).first()
    if staff is None:
        raise NotFound("Staff member not found.")
    return staff


def get_member(organization: Organization, user_id: uuid.UUID) -> OrganizationMember:
    member = list_members(organization).filter(user_id=user_id).first()
    if member is None:
        raise NotFound("Member not found.")
    return member


def get_membership_request(
    organization: Organization, request_id: uuid.UUID
) -> OrganizationMembershipRequest:
    request = list_membership_requests(organization).filter(pk=request_id).first()
    if request is None:
        raise NotFound("Membership request not found.")
    return request


def get_blacklist_entry(organization: Organization, entry_id: uuid.UUID) -> Blacklist:
    entry = list_blacklist(organization).filter(pk=entry_id).first()
    if entry is None:
        raise NotFound("Blacklist entry not found.")
    return entry


def get_venue(organization: Organization, venue_id: uuid.UUID) -> Venue:
    venue = list_venues(organization).filter(pk=venue_id).first()
    if venue is None:
        raise NotFound("Venue not found.")
    return venue
