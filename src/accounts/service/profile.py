"""The caller's own profile: names, language and timezone."""

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError

from accounts.models import User
from common.timezones import is_valid_timezone

EDITABLE_FIELDS = ("first_name", "last_name", "preferred_name", "language", "timezone")


def language_codes() -> list[str]:
    return [code for code, _name in settings.LANGUAGES]


def update_profile(user: User, changes: Mapping[str, Any]) -> User:
    """Apply the sent fields; a bad language or timezone refuses the whole change (400)."""
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValueError(f"not editable: {sorted(unknown)}")
    _validate(changes)
    if not changes:
        return user
    for field, value in changes.items():
        setattr(user, field, value)
    user.save(update_fields=[*changes, "updated_at"])
    return user


def _validate(changes: Mapping[str, Any]) -> None:
    errors: dict[str, list[str]] = {}
    if "language" in changes and changes["language"] not in language_codes():
        errors["language"] = [f"Choose one of: {', '.join(language_codes())}."]
    if "timezone" in changes and not is_valid_timezone(changes["timezone"]):
        errors["timezone"] = [f"'{changes['timezone']}' is not a valid IANA timezone."]
    if errors:
        raise ValidationError(errors)
