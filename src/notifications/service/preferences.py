"""What each person wants to be told, and on which channels.

The row is created on first read or send (`get_preferences`, kept in the lower
`notifications.preference_rows` so the Telegram channel can read the chat id without
importing a service), so `accounts` never has to know this app exists. `resolve_channels` is the one rule the delivery code asks
"where does this notification go?"; `update_preferences` is the only writer and refuses
unknown channel or type names before anything is stored, so the rule never meets them
from the API (the admin can still store anything, hence the defensive filtering).
"""

from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import User
from common.errors import InvalidInput
from notifications.models import Channel, NotificationPreference, NotificationType
from notifications.preference_rows import get_preferences

__all__ = ["get_preferences", "resolve_channels", "update_preferences"]

EDITABLE_FIELDS = ("silence_all", "enabled_channels", "type_settings", "telegram_chat_id")
CHANNEL_NAMES = tuple(Channel.values)
TYPE_NAMES = tuple(NotificationType.values)
TELEGRAM_CHAT_ID_MAX_LENGTH = NotificationPreference._meta.get_field("telegram_chat_id").max_length


def resolve_channels(preference: NotificationPreference, notification_type: str) -> list[str]:
    """The channels a notification of this type goes to, in the user's order, no duplicates.

    silence_all wins; then a disabled type; then the type's own channel list if it has
    one, else the user's enabled channels. Telegram needs both a chat id and a bot token.
    """
    if preference.silence_all:
        return []
    setting = _type_setting(preference, notification_type)
    if not setting.get("enabled", True):
        return []
    wanted = setting.get("channels")
    if wanted is None:
        wanted = preference.enabled_channels
    return _deliverable(preference, wanted if isinstance(wanted, list) else [])


def update_preferences(user: User, data: Mapping[str, Any]) -> NotificationPreference:
    """Apply the fields sent; any unknown channel or type name refuses the whole change.

    `type_settings` is merged per type: a type sent with `null` goes back to the
    defaults, types not sent keep their settings. The row is locked while merging so
    two concurrent changes to different types both survive.
    """
    changes = _clean(data)  # raises InvalidInput before anything is written
    get_preferences(user)
    with transaction.atomic():
        preference = NotificationPreference.objects.select_for_update().get(user=user)
        if "type_settings" in changes:
            changes["type_settings"] = _merge_type_settings(
                preference.type_settings, changes["type_settings"]
            )
        for field, value in changes.items():
            setattr(preference, field, value)
        if changes:
            preference.save(update_fields=[*changes, "updated_at"])
    return preference


# -- resolving -------------------------------------------------------------------------


def _type_setting(preference: NotificationPreference, notification_type: str) -> dict[str, Any]:
    type_settings = preference.type_settings if isinstance(preference.type_settings, dict) else {}
    setting = type_settings.get(notification_type)
    return setting if isinstance(setting, dict) else {}


def _deliverable(preference: NotificationPreference, wanted: Iterable[Any]) -> list[str]:
    telegram_ready = bool(preference.telegram_chat_id) and bool(
        getattr(settings, "TELEGRAM_BOT_TOKEN", "")
    )
    resolved: list[str] = []
    for channel in wanted:
        if channel not in CHANNEL_NAMES or channel in resolved:
            continue
        if channel == Channel.TELEGRAM and not telegram_ready:
            continue
        resolved.append(str(channel))
    return resolved


# -- validating ------------------------------------------------------------------------


def _clean(data: Mapping[str, Any]) -> dict[str, Any]:
    """Validated, normalised changes; every problem is collected into one InvalidInput."""
    errors: dict[str, list[str]] = {}
    changes: dict[str, Any] = {}
    for field in sorted(set(data) - set(EDITABLE_FIELDS)):
        errors[field] = ["Unknown field."]
    if "silence_all" in data:
        changes["silence_all"] = _clean_bool(data["silence_all"], "silence_all", errors)
    if "telegram_chat_id" in data:
        changes["telegram_chat_id"] = _clean_chat_id(data["telegram_chat_id"], errors)
    if "enabled_channels" in data:
        changes["enabled_channels"] = _clean_channels(
            data["enabled_channels"], "enabled_channels", errors
        )
    if "type_settings" in data:
        changes["type_settings"] = _clean_type_settings(data["type_settings"], errors)
    if errors:
        raise InvalidInput(errors)
    return changes


def _clean_bool(value: Any, field: str, errors: dict[str, list[str]]) -> bool:
    if not isinstance(value, bool):
        errors.setdefault(field, []).append("Must be true or false.")
    return bool(value)


def _clean_chat_id(value: Any, errors: dict[str, list[str]]) -> str:
    if not isinstance(value, str) or len(value.strip()) > (TELEGRAM_CHAT_ID_MAX_LENGTH or 64):
        errors.setdefault("telegram_chat_id", []).append(
            f"Must be a string of at most {TELEGRAM_CHAT_ID_MAX_LENGTH} characters."
        )
        return ""
    return value.strip()


def _clean_channels(value: Any, field: str, errors: dict[str, list[str]]) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        errors.setdefault(field, []).append("Must be a list of channel names.")
        return []
    for name in value:
        if name not in CHANNEL_NAMES:
            errors.setdefault(field, []).append(
                f"Unknown channel '{name}'; choose from: {', '.join(CHANNEL_NAMES)}."
            )
    return list(dict.fromkeys(value))


def _clean_type_settings(value: Any, errors: dict[str, list[str]]) -> dict[str, Any]:
    """type → normalised `{"enabled", "channels"?}`, or None to reset that type."""
    if not isinstance(value, dict):
        errors.setdefault("type_settings", []).append("Must be an object keyed by type name.")
        return {}
    cleaned: dict[str, Any] = {}
    for name, setting in value.items():
        if name not in TYPE_NAMES:
            errors.setdefault("type_settings", []).append(
                f"Unknown notification type '{name}'; choose from: {', '.join(TYPE_NAMES)}."
            )
            continue
        cleaned[name] = None if setting is None else _clean_type_setting(name, setting, errors)
    return cleaned


def _clean_type_setting(name: str, setting: Any, errors: dict[str, list[str]]) -> dict[str, Any]:
    field = f"type_settings.{name}"
    if not isinstance(setting, dict) or set(setting) - {"enabled", "channels"}:
        errors.setdefault(field, []).append("Must be an object with 'enabled' and 'channels'.")
        return {}
    normalised: dict[str, Any] = {
        "enabled": _clean_bool(setting.get("enabled", True), f"{field}.enabled", errors)
    }
    if setting.get("channels") is not None:
        normalised["channels"] = _clean_channels(setting["channels"], f"{field}.channels", errors)
    return normalised


def _merge_type_settings(current: Any, sent: dict[str, Any]) -> dict[str, Any]:
    merged = dict(current) if isinstance(current, dict) else {}
    for name, setting in sent.items():
        if setting is None:
            merged.pop(name, None)
        else:
            merged[name] = setting
    return merged
