"""Creating and editing organisations.

The creator becomes the owner, who holds every permission without a staff row. The
slug is the organisation's public handle: taken from the name when not given, and
made unique with a numeric suffix (`club`, `club-2`, ...).
"""

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from accounts.models import User
from common.errors import Conflict, InvalidInput
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
