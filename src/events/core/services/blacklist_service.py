"""An organisation's blacklist: a hard match by user or by e-mail (case-insensitive).

A listed person sees nothing of the organisation and cannot take part (docs/spec/domain.md).
The owner can never be listed: that would lock the organisation out of itself. One
person is listed once; a second entry that matches the same person is a conflict.
"""

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db.models import Q, QuerySet

from accounts.models import User
from common.errors import Conflict, InvalidInput
from events.models import Blacklist, Organization


class AlreadyBlacklisted(Conflict):
    default_code = "already_blacklisted"
    default_detail = "This person is already on the blacklist."


def add_blacklist_entry(
    organization: Organization,
    *,
    user: User | None = None,
    email: str | None = None,
    reason: str = "",
) -> Blacklist:
    email = (email or "").strip().lower()
    _check_target(organization, user, email)
    if _entries_matching(organization, user, email).exists():
        raise AlreadyBlacklisted()
    entry = Blacklist(organization=organization, user=user, email=email, reason=reason)
    entry.save(force_insert=True)
    return entry


def remove_blacklist_entry(entry: Blacklist) -> None:
    entry.delete()


def _check_target(organization: Organization, user: User | None, email: str) -> None:
    if user is None and not email:
        raise InvalidInput({"non_field_errors": ["Give a user_id or an email."]})
    if email:
        try:
            validate_email(email)
        except ValidationError as exc:
            raise InvalidInput({"email": list(exc.messages)}) from exc
    refusal = ["The owner of the organisation cannot be blacklisted."]
    if user is not None and user.pk == organization.owner_id:
        raise InvalidInput({"user_id": refusal})
    if email and email == organization.owner.email.lower():
        raise InvalidInput({"email": refusal})


def _entries_matching(
    organization: Organization, user: User | None, email: str
) -> QuerySet[Blacklist]:
    match = Q()
    if user is not None:
        match |= Q(user=user) | Q(email__iexact=user.email)
    if email:
        match |= Q(email__iexact=email) | Q(user__email__iexact=email)
    return Blacklist.objects.filter(organization=organization).filter(match)
