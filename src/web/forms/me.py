"""Forms of the signed-in attendee's pages and of the password reset.

They check the shape of the input only; the rules stay in the services the views call
(`accounts.service.profile` for the language and zone, `notifications.service.
preferences` for channel and type names, the password validators in
`accounts.service.password_reset`). The notification grid is one checkbox per type and
channel; `preference_changes` turns the ticked boxes into the `type_settings` change
`PATCH /api/notification-preferences` takes, leaving untouched types on their defaults.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.conf import settings
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from notifications.models import Channel, NotificationPreference, NotificationType
from web.forms.zones import zone_field

TYPE_LABELS: dict[str, Promise] = {
    NotificationType.WAITLIST_SPOT_AVAILABLE: _("A seat is offered to me from the waitlist"),
    NotificationType.WAITLIST_OFFER_EXPIRED: _("My waitlist offer expired"),
    NotificationType.WAITLIST_OFFER_REVOKED: _("An organiser withdrew my waitlist offer"),
    NotificationType.SERIES_EVENTS_GENERATED: _("New dates in a series I follow"),
    NotificationType.EVENT_OPEN: _("An event opens for registration"),
    NotificationType.EVENT_UPDATED: _("An event I attend changes"),
    NotificationType.EVENT_CANCELLED: _("An event I attend is cancelled"),
    NotificationType.TICKET_CREATED: _("Ticket confirmations"),
    NotificationType.TICKET_CANCELLED: _("Ticket cancellations"),
    NotificationType.RSVP_CONFIRMATION: _("RSVP confirmations"),
}
CHANNEL_LABELS: dict[str, Promise] = {
    Channel.IN_APP: _("In the app"),
    Channel.EMAIL: _("E-mail"),
    Channel.TELEGRAM: _("Telegram"),
}


def language_choices() -> list[tuple[str, str]]:
    labels = {"en": _("English"), "de": _("German")}
    return [(code, str(labels.get(code, name))) for code, name in settings.LANGUAGES]


def offered_channels() -> list[str]:
    """Telegram only where this Encore has a bot (else the channel is off for everyone)."""
    channels = [Channel.IN_APP.value, Channel.EMAIL.value]
    if getattr(settings, "TELEGRAM_BOT_TOKEN", ""):
        channels.append(Channel.TELEGRAM.value)
    return channels


def box_name(notification_type: str, channel: str) -> str:
    return f"notify_{notification_type}_{channel}"


def chosen_channels(preference: NotificationPreference, notification_type: str) -> list[str]:
    """The channels a type is set to (the grid's ticks), before silence and deliverability."""
    type_settings = preference.type_settings if isinstance(preference.type_settings, dict) else {}
    setting = type_settings.get(notification_type)
    setting = setting if isinstance(setting, dict) else {}
    if not setting.get("enabled", True):
        return []
    wanted = setting.get("channels")
    if not isinstance(wanted, list):
        wanted = (
            preference.enabled_channels if isinstance(preference.enabled_channels, list) else []
        )
    return [str(channel) for channel in wanted]


@dataclass(frozen=True)
class GridRow:
    label: str
    boxes: list[tuple[str, forms.BoundField]]  # (channel label, checkbox)


class SettingsForm(forms.Form):
    """Profile (name, zone, language) and the notification grid, saved with one "Save"."""

    name = forms.CharField(
        label=_("Name"),
        max_length=150,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    timezone = zone_field(_("Timezone"))
    language = forms.ChoiceField(label=_("Language"), choices=language_choices)
    silence_all = forms.BooleanField(label=_("Pause all notifications"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.channels = offered_channels()
        for notification_type, type_label in TYPE_LABELS.items():
            for channel in self.channels:
                self.fields[box_name(notification_type, channel)] = forms.BooleanField(
                    label=f"{CHANNEL_LABELS[channel]}: {type_label}", required=False
                )

    @classmethod
    def initial_for(cls, user: User, preference: NotificationPreference) -> dict[str, Any]:
        initial: dict[str, Any] = {
            "name": full_name(user),
            "timezone": user.timezone,
            "language": user.language,
            "silence_all": preference.silence_all,
        }
        for notification_type in TYPE_LABELS:
            for channel in chosen_channels(preference, notification_type):
                initial[box_name(notification_type, channel)] = True
        return initial

    def profile_fields(self) -> list[forms.BoundField]:
        return [self["name"], self["timezone"], self["language"]]

    def channel_labels(self) -> list[str]:
        return [str(CHANNEL_LABELS[channel]) for channel in self.channels]

    def grid(self) -> list[GridRow]:
        return [
            GridRow(
                str(type_label),
                [
                    (str(CHANNEL_LABELS[channel]), self[box_name(notification_type, channel)])
                    for channel in self.channels
                ],
            )
            for notification_type, type_label in TYPE_LABELS.items()
        ]

    def profile_changes(self, user: User) -> dict[str, str]:
        """The profile fields that differ from the user's (the Name is first + last name)."""
        data = self.cleaned_data
        changes: dict[str, str] = {}
        if data["name"].strip() != full_name(user):
            changes.update(first_name=data["name"].strip(), last_name="")
        for field in ("timezone", "language"):
            if data[field] != getattr(user, field):
                changes[field] = data[field]
        return changes

    def preference_changes(self, preference: NotificationPreference) -> dict[str, Any]:
        """`silence_all` and the types whose ticks changed, as update_preferences takes them.

        A type with no box ticked is switched off; channels not offered on this page
        (Telegram without a bot) keep what the type had.
        """
        data = self.cleaned_data
        changes: dict[str, Any] = {}
        if data["silence_all"] != preference.silence_all:
            changes["silence_all"] = data["silence_all"]
        type_settings: dict[str, Any] = {}
        for notification_type in TYPE_LABELS:
            current = chosen_channels(preference, notification_type)
            ticked = [c for c in self.channels if data[box_name(notification_type, c)]]
            wanted = ticked + [c for c in current if c not in self.channels]
            if set(wanted) != set(current):
                type_settings[notification_type] = _setting(wanted)
        if type_settings:
            changes["type_settings"] = type_settings
        return changes

    def add_service_errors(self, errors: Mapping[str, Iterable[str]]) -> None:
        """A refusal of the profile or preference service, shown next to its field."""
        for field, messages in errors.items():
            target = field if field in self.fields else None
            if field in ("first_name", "last_name", "preferred_name"):
                target = "name"
            for message in messages:
                self.add_error(target, message)


def _setting(channels: list[str]) -> dict[str, Any]:
    if not channels:
        return {"enabled": False}
    return {"enabled": True, "channels": channels}


def full_name(user: User) -> str:
    return f"{user.first_name} {user.last_name}".strip()


class PasswordResetRequestForm(forms.Form):
    email = forms.EmailField(
        label=_("Email"), widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )


class SetPasswordForm(forms.Form):
    password = forms.CharField(
        label=_("New password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
