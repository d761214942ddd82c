"""Who may see and manage what. Every admin route goes through `access_*` here.

Visibility (docs/spec/domain.md): anonymous users see public/unlisted events that are open,
closed or cancelled; drafts and staff-only events only staff and the owner; private
events those invited or attending; members-only events active/paused members;
blacklisted users see nothing of that organisation; templates never appear on public
routes. A non-public organisation shows its events to staff and members only.
"""

import uuid
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import (
    CharField,
    Exists,
    Expression,
    OuterRef,
    Q,
    QuerySet,
    UUIDField,
    Value,
)
from django.db.models.functions import Upper
from django.db.models.lookups import Exact

from common.compiled_query import CompiledQuery, Param
from common.errors import NotFound, PermissionDenied, first_or_not_found
from events.models import (
    Blacklist,
    Event,
    EventRSVP,
    Invitation,
    Organization,
    OrganizationMember,
    OrganizationStaff,
    Ticket,
)

AnyUser = Any  # accounts.User or AnonymousUser
UserRef = Any  # a user's id (uuid.UUID), or an expression standing for it (a Param)

VISIBLE_STATUSES = (Event.Status.OPEN, Event.Status.CLOSED, Event.Status.CANCELLED)
LIVE_MEMBER_STATUSES = (OrganizationMember.Status.ACTIVE, OrganizationMember.Status.PAUSED)


def is_authenticated(user: AnyUser) -> bool:
    return user is not None and not isinstance(user, AnonymousUser) and bool(user.is_authenticated)


def staff_organizations(user: AnyUser) -> QuerySet[Organization]:
    """Organisations where the user is owner or staff."""
    if not is_authenticated(user):
        return Organization.objects.none()
    return _staff_organizations(user.pk)


def blacklisted_organizations(user: AnyUser) -> QuerySet[Organization]:
    if not is_authenticated(user):
        return Organization.objects.none()
    return _blacklisted_organizations(user.pk, Value(user.email))


def member_organizations(user: AnyUser) -> QuerySet[Organization]:
    if not is_authenticated(user):
        return Organization.objects.none()
    return _member_organizations(user.pk)


# The three above and `visible_events` for a signed-in user, spelled with the user's id
# and e-mail as values *or* expressions, so a compiled statement can put a `Param` in
# their place (`events.core.selectors.event.get_participation_event`, ADR 0028).
def _staff_organizations(user_id: UserRef) -> QuerySet[Organization]:
    staff = OrganizationStaff.objects.filter(organization=OuterRef("pk"), user_id=user_id)
    return Organization.objects.filter(Q(owner_id=user_id) | Q(Exists(staff)))


def _blacklisted_organizations(user_id: UserRef, email: Expression) -> QuerySet[Organization]:
    entries = Blacklist.objects.filter(organization=OuterRef("pk")).filter(
        # email__iexact, spelled so that a Param can stand for the address
        Q(user_id=user_id) | Q(Exact(Upper("email"), Upper(email)))
    )
    return Organization.objects.filter(Exists(entries))


def _member_organizations(user_id: UserRef) -> QuerySet[Organization]:
    members = OrganizationMember.objects.filter(
        organization=OuterRef("pk"), user_id=user_id, status__in=LIVE_MEMBER_STATUSES
    )
    return Organization.objects.filter(Exists(members))


def visible_organizations(user: AnyUser) -> QuerySet[Organization]:
    if not is_authenticated(user):
        return Organization.objects.filter(visibility=Organization.Visibility.PUBLIC)
    return _visible_organizations_of(user.pk, Value(user.email))


def _visible_organizations_of(user_id: UserRef, email: Expression) -> QuerySet[Organization]:
    public = Q(visibility=Organization.Visibility.PUBLIC)
    staff = _staff_organizations(user_id)
    return Organization.objects.filter(
        public | Q(pk__in=staff) | Q(pk__in=_member_organizations(user_id))
    ).exclude(pk__in=_blacklisted_organizations(user_id, email).exclude(pk__in=staff))


#: Whether a signed-in user may see an organisation: asked by every organiser page and
#: admin route, compiled once and prepared on PostgreSQL (ADR 0028), since building the
#: rule costs Django more than the database spends answering it (docs/spec/quality.md h3).
_ORGANIZATION_VISIBLE = CompiledQuery(
    lambda: (
        _visible_organizations_of(Param("user_id", UUIDField()), Param("email", CharField()))
        .filter(pk=Param("organization_id", UUIDField()))
        .values("pk")
    ),
    prepared_as="organization_visible",
)


def visible_events(user: AnyUser) -> QuerySet[Event]:
    """Every non-template event the user may see (unlisted ones included)."""
    if not is_authenticated(user):
        return Event.objects.filter(
            Q(status__in=VISIBLE_STATUSES),
            is_template=False,
            visibility__in=[Event.Visibility.PUBLIC, Event.Visibility.UNLISTED],
            organization__visibility=Organization.Visibility.PUBLIC,
        )
    return visible_events_of(user.pk, Value(user.email))


def visible_events_of(user_id: UserRef, email: Expression) -> QuerySet[Event]:
    """`visible_events` of the signed-in user with this id and e-mail (values or
    expressions: a compiled statement passes `Param`s)."""
    shown = Q(status__in=VISIBLE_STATUSES)
    staff_of = Q(organization__in=_staff_organizations(user_id))
    member_of = Q(organization__in=_member_organizations(user_id))
    invited = Exists(Invitation.objects.filter(event=OuterRef("pk"), user_id=user_id))
    attending = Exists(
        Ticket.objects.filter(event=OuterRef("pk"), user_id=user_id).exclude(
            status=Ticket.Status.CANCELLED
        )
    ) | Exists(
        EventRSVP.objects.filter(event=OuterRef("pk"), user_id=user_id, status=EventRSVP.Status.YES)
    )
    org_open = Q(organization__visibility=Organization.Visibility.PUBLIC) | member_of
    by_visibility = (
        Q(visibility__in=[Event.Visibility.PUBLIC, Event.Visibility.UNLISTED])
        | (Q(visibility=Event.Visibility.PRIVATE) & (Q(invited) | Q(attending)))
        | (Q(visibility=Event.Visibility.MEMBERS_ONLY) & member_of)
    )
    blacklisted = Q(organization__in=_blacklisted_organizations(user_id, email))
    return Event.objects.filter(is_template=False).filter(
        staff_of | (shown & org_open & by_visibility & ~blacklisted)
    )


def has_org_permission(user: AnyUser, organization: Organization, permission: str) -> bool:
    """Owner: everything; staff: their permission map; anyone else: nothing."""
    if not is_authenticated(user):
        return False
    if organization.owner_id == user.pk:
        return True
    staff = OrganizationStaff.objects.filter(organization=organization, user=user).first()
    return staff is not None and staff.has_permission(permission)


def is_org_staff(user: AnyUser, organization: Organization) -> bool:
    if not is_authenticated(user):
        return False
    if organization.owner_id == user.pk:
        return True
    return OrganizationStaff.objects.filter(organization=organization, user=user).exists()


def _can_see_event_for_admin(user: AnyUser, event: Event) -> bool:
    """Templates are visible to their organisation's staff on admin routes."""
    if is_org_staff(user, event.organization):
        return True
    return visible_events(user).filter(pk=event.pk).exists()


def access_event_admin(user: AnyUser, event_id: uuid.UUID, permission: str) -> Event:
    """Fetch an event for an admin route: 404 if the caller cannot see it, 403 without the permission."""
    event = Event.objects.select_related("organization", "venue").filter(pk=event_id).first()
    if event is None or not _can_see_event_for_admin(user, event):
        raise NotFound("Event not found.")
    if not has_org_permission(user, event.organization, permission):
        raise PermissionDenied()
    return event


def _visible_organization(user: AnyUser, slug: str) -> Organization:
    """The organisation with this slug if the caller may see it, else 404."""
    organization = Organization.objects.filter(slug=slug).first()
    if organization is None or not _may_see(user, organization):
        raise NotFound("Organization not found.")
    return organization


def _may_see(user: AnyUser, organization: Organization) -> bool:
    if not is_authenticated(user):
        return visible_organizations(user).filter(pk=organization.pk).exists()
    found = _ORGANIZATION_VISIBLE.rows(
        user_id=user.pk, email=user.email, organization_id=organization.pk
    )
    return bool(found)


def access_organization_admin(user: AnyUser, slug: str, permission: str) -> Organization:
    """Fetch an organisation for an admin route: 404 if invisible, 403 without the permission."""
    organization = _visible_organization(user, slug)
    if not has_org_permission(user, organization, permission):
        raise PermissionDenied()
    return organization


def access_owner(user: AnyUser, slug: str) -> Organization:
    """Only the owner may manage staff."""
    organization = _visible_organization(user, slug)
    if not is_authenticated(user) or organization.owner_id != user.pk:
        raise PermissionDenied("Only the owner can do this.")
    return organization


def get_visible_event(user: AnyUser, event_id: uuid.UUID) -> Event:
    events = visible_events(user).select_related("organization", "venue")
    return first_or_not_found(events.filter(pk=event_id), "Event not found.")
