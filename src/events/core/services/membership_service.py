"""Members of an organisation and the requests to become one.

Staff with `manage_members` add, change and remove members directly, and decide on
requests. A user may ask to join only while the organisation accepts requests, once at
a time, and not while already an active or paused member; a banned member cannot ask.
A cancelled member may ask again: approval re-activates the same membership row.
"""

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from common.errors import Conflict, EncoreError, InvalidInput, PermissionDenied
from events.core.services.unique_insert import insert_or_conflict
from events.models import Organization, OrganizationMember, OrganizationMembershipRequest

Status = OrganizationMember.Status
RequestStatus = OrganizationMembershipRequest.Status
LIVE_STATUSES = (Status.ACTIVE, Status.PAUSED)


class AlreadyMember(Conflict):
    default_code = "already_member"
    default_detail = "This user is already a member of the organisation."


class RequestPending(Conflict):
    default_code = "request_pending"
    default_detail = "A membership request is already waiting for a decision."


class RequestNotPending(Conflict):
    default_code = "request_not_pending"
    default_detail = "This membership request has already been decided."


class NotAcceptingRequests(EncoreError):
    status_code = 400
    default_code = "not_accepting_requests"
    default_detail = "This organisation does not accept membership requests."


class MembershipBanned(PermissionDenied):
    default_code = "membership_banned"
    default_detail = "You are banned from this organisation."


# -- members --------------------------------------------------------------------------
def add_member(
    organization: Organization, *, user: User, status: str = Status.ACTIVE
) -> OrganizationMember:
    _check_status(status)
    if OrganizationMember.objects.filter(organization=organization, user=user).exists():
        raise AlreadyMember()
    member = OrganizationMember(organization=organization, user=user, status=status)
    insert_or_conflict(member, AlreadyMember())
    return member


def update_member(member: OrganizationMember, *, status: str) -> OrganizationMember:
    _check_status(status)
    member.status = status
    member.save(update_fields=["status", "updated_at"])
    return member


def remove_member(member: OrganizationMember) -> None:
    member.delete()


def _check_status(status: str) -> None:
    if status not in Status.values:
        raise InvalidInput({"status": [f"Must be one of: {', '.join(Status.values)}."]})


# -- membership requests ----------------------------------------------------------------
def request_membership(
    organization: Organization, *, user: User, message: str = ""
) -> OrganizationMembershipRequest:
    if not organization.accept_membership_requests:
        raise NotAcceptingRequests()
    current = (
        OrganizationMember.objects.filter(organization=organization, user=user)
        .values_list("status", flat=True)
        .first()
    )
    if current in LIVE_STATUSES:
        raise AlreadyMember("You are already a member of this organisation.")
    if current == Status.BANNED:
        raise MembershipBanned()
    pending = OrganizationMembershipRequest.objects.filter(
        organization=organization, user=user, status=RequestStatus.PENDING
    )
    if pending.exists():
        raise RequestPending()
    request = OrganizationMembershipRequest(organization=organization, user=user, message=message)
    insert_or_conflict(request, RequestPending())
    return request


def approve_request(
    request: OrganizationMembershipRequest, *, decided_by: User
) -> OrganizationMembershipRequest:
    """Decide once (row lock): the user becomes an active member, re-activating an old row."""
    with transaction.atomic():
        locked = _lock_pending(request)
        OrganizationMember.objects.update_or_create(
            organization_id=locked.organization_id,
            user_id=locked.user_id,
            defaults={"status": Status.ACTIVE},
        )
        _decide(locked, RequestStatus.APPROVED, decided_by)
    return locked


def reject_request(
    request: OrganizationMembershipRequest, *, decided_by: User
) -> OrganizationMembershipRequest:
    with transaction.atomic():
        locked = _lock_pending(request)
        _decide(locked, RequestStatus.REJECTED, decided_by)
    return locked


def _lock_pending(request: OrganizationMembershipRequest) -> OrganizationMembershipRequest:
    locked = (
        OrganizationMembershipRequest.objects.select_for_update(of=("self",))
        .select_related("user")
        .get(pk=request.pk)
    )
    if locked.status != RequestStatus.PENDING:
        raise RequestNotPending()
    return locked


def _decide(request: OrganizationMembershipRequest, status: str, decided_by: User) -> None:
    request.status = status
    request.decided_by = decided_by
    request.decided_at = timezone.now()
    request.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
