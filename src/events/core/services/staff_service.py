"""Staff of an organisation and their permission maps (docs/spec/domain.md "Organisations").

A staff row starts from the documented defaults; the owner may switch any known key on
or off. Unknown keys are refused rather than stored, so a typo never silently grants
or withholds anything. The owner holds every permission already and is never staff.
"""

from collections.abc import Mapping

from django.db import transaction

from accounts.models import User
from common.errors import Conflict, InvalidInput
from events.core.models.organization import default_staff_permissions
from events.core.services.unique_insert import insert_or_conflict
from events.models import Organization, OrganizationStaff, StaffPermission


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
    return staff


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
