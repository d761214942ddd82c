"""Staff of an organisation and their permission maps (docs/spec/domain.md "Organisations").

A staff row starts from the documented defaults; the owner may switch any known key on
or off. Unknown keys are refused rather than stored, so a typo never silently grants
or withholds anything. The owner holds every permission already and is never staff.

The person added is told by e-mail (docs/spec/ui.md, the team page), whichever door
added them: after commit, by the task `events.send_staff_welcome`, through the account
mails' path (`accounts.service.account_mail`), so a failed insert mails no one.
"""

from collections.abc import Mapping

from django.db import transaction

from accounts.models import User
from accounts.service.account_mail import send_account_mail
from common import dispatch, links
from common.errors import Conflict, InvalidInput
from events.core.models.organization import default_staff_permissions
from events.core.services.unique_insert import insert_or_conflict
from events.models import Organization, OrganizationStaff, StaffPermission

WELCOME_SUBJECT = "You were added to the team of %(organization)s on Encore"


class AlreadyStaff(Conflict):
    default_code = "already_staff"
    default_detail = "This user is already staff of the organisation."


def add_staff(
    organization: Organization, *, user: User, permissions: Mapping[str, bool] | None = None
) -> OrganizationStaff:
    if user.pk == organization.owner_id:
        raise InvalidInput({"user_id": ["The owner holds every permission and cannot be staff."]})
    _check_permission_keys(permissions or {})
    if OrganizationStaff.objects.filter(organization=organization, user=user).exists():
        raise AlreadyStaff()
    staff = OrganizationStaff(
        organization=organization,
        user=user,
        permissions={**default_staff_permissions(), **(permissions or {})},
    )
    insert_or_conflict(staff, AlreadyStaff())
    dispatch.after_commit("events.send_staff_welcome", str(staff.pk))
    return staff


def send_staff_welcome(staff_id: str) -> bool:
    """Tell a new staff member where to find the organisation; True when the mail went out.

    Nothing is sent when the person was removed again before the task ran.
    """
    staff = (
        OrganizationStaff.objects.select_related("user", "organization")
        .filter(pk=staff_id, user__is_active=True)
        .first()
    )
    if staff is None:
        return False
    organization = staff.organization
    return send_account_mail(
        staff.user,
        template="staff_added",
        subject=WELCOME_SUBJECT % {"organization": organization.name},
        context={
            "organization": organization,
            "link": links.absolute_url(f"/manage/{organization.slug}"),
        },
    )


def update_staff(staff: OrganizationStaff, *, permissions: Mapping[str, bool]) -> OrganizationStaff:
    """Merge the given keys into the stored map (keys not sent keep their value)."""
    _check_permission_keys(permissions)
    with transaction.atomic():
        locked = (
            OrganizationStaff.objects.select_for_update(of=("self",))
            .select_related("user")
            .get(pk=staff.pk)
        )
        locked.permissions = {**default_staff_permissions(), **locked.permissions, **permissions}
        locked.save(update_fields=["permissions", "updated_at"])
    return locked


def remove_staff(staff: OrganizationStaff) -> None:
    staff.delete()


def _check_permission_keys(permissions: Mapping[str, bool]) -> None:
    unknown = sorted(set(permissions) - set(StaffPermission.values))
    if unknown:
        raise InvalidInput({"permissions": [f"Unknown permission: {key}." for key in unknown]})
