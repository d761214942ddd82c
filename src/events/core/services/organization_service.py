"""Creating and editing organisations.

The creator becomes the owner, who holds every permission without a staff row. The
slug is the organisation's public handle: taken from the name when not given, and
made unique with a numeric suffix (`club`, `club-2`, ...).

The logo is a picture the app re-encodes (`images.store_upload`); the settings page
saves it with the other fields in one transaction (`update_settings`), so a refused
field keeps the old logo and a refused picture keeps the old fields, and a replaced
logo's picture is deleted with the change that replaced it.
"""

from collections.abc import Mapping
from typing import IO, Any

from django.db import transaction
from django.utils.text import slugify

from accounts.models import User
from common.errors import Conflict, InvalidInput
from events.core.services import images
from events.core.services.unique_insert import insert_or_conflict
from events.models import Organization

UPDATABLE_FIELDS = frozenset(
    {
        "name",
        "description",
        "timezone",
        "visibility",
        "accept_membership_requests",
        # The settings page's (the API's PATCH schema does not offer them yet).
        "contact_email",
        "payment_instructions",
    }
)
#: A logo is shown small; this still covers a sharp screen.
LOGO_SIZE = (480, 480)
SLUG_MAX_LENGTH = 150  # leaves room for the numeric suffix within the 160-character column


def create_organization(
    *,
    owner: User,
    name: str,
    slug: str | None = None,
    timezone: str | None = None,
    description: str = "",
) -> Organization:
    """Create an organisation owned by `owner`; invalid values raise a field error (400)."""
    organization = Organization(
        owner=owner,
        name=name.strip(),
        description=description,
        timezone=timezone or "UTC",
    )
    with transaction.atomic():
        organization.slug = slug if slug is not None else _free_slug(organization.name)
        organization.full_clean()
        insert_or_conflict(
            organization,
            Conflict("An organisation with this name or slug exists.", code="organization_exists"),
        )
    return organization


def update_organization(organization: Organization, *, changes: Mapping[str, Any]) -> Organization:
    """Apply the PATCH fields that were sent; the row is re-read under a lock and re-validated."""
    unknown = sorted(set(changes) - UPDATABLE_FIELDS)
    if unknown:
        raise InvalidInput({field: ["This field cannot be changed."] for field in unknown})
    if not changes:
        return organization
    with transaction.atomic():
        locked = Organization.objects.select_for_update().get(pk=organization.pk)
        for field, value in changes.items():
            setattr(locked, field, value.strip() if field == "name" and value else value)
        locked.full_clean()
        locked.save(update_fields=[*changes, "updated_at"])
    return locked


def update_settings(
    organization: Organization,
    *,
    changes: Mapping[str, Any],
    logo: IO[bytes] | None = None,
    remove_logo: bool = False,
) -> Organization:
    """The settings page's save: the fields, and a new logo (or none), all or nothing.

    A logo that is not a picture is refused as a field error on `logo` (400).
    """
    with transaction.atomic():
        new_logo = images.store_upload(logo, max_size=LOGO_SIZE, field="logo") if logo else None
        updated = update_organization(organization, changes=changes)
        if new_logo is None and not remove_logo:
            return updated
        old_logo_id = updated.logo_id
        updated.logo = new_logo
        updated.save(update_fields=["logo", "updated_at"])
        images.delete_image(old_logo_id)
    return updated


def _free_slug(name: str) -> str:
    """The name's slug, or the first `<slug>-N` nobody uses yet (one query)."""
    base = slugify(name)[:SLUG_MAX_LENGTH].strip("-") or "organization"
    taken = set(Organization.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    if base not in taken:
        return base
    suffix = 2
    while f"{base}-{suffix}" in taken:
        suffix += 1
    return f"{base}-{suffix}"
