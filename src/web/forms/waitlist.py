"""The waitlist settings form of the organiser's waitlist page (docs/spec/ui.md).

It only turns the page's fields into the API's values: the offer window is typed in
hours, the cutoff as a local date and time in the zone the page shows. The values are
then checked as the API checks them (`WaitlistSettingsSchema`, then `Event.clean()`
inside `waitlist_settings_service`), so the page and the PATCH refuse the same things.
"""

import zoneinfo
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.utils.timezone import now
from django.utils.translation import gettext_lazy as _

from events.core.models.event import WAITLIST_PARTY_MAX

LOCAL_FORMAT = "%Y-%m-%dT%H:%M"


class WaitlistSettingsForm(forms.Form):
    waitlist_open = forms.BooleanField(label=_("Active waitlist"), required=False)
    waitlist_time_window = forms.DecimalField(
        label=_("Offer window"),
        required=False,
        min_value=Decimal(0),
        max_digits=7,
        decimal_places=2,
        help_text=_("In hours, 1 to 168. Empty: a passive waitlist (no offers are sent)."),
        widget=forms.NumberInput(attrs={"step": "0.25", "inputmode": "decimal"}),
    )
    waitlist_batch_size = forms.IntegerField(
        label=_("Batch size"),
        min_value=0,
        initial=0,
        help_text=_("People offered a seat per round; 0 = everyone up to the free seats."),
    )
    waitlist_lottery_mode = forms.BooleanField(label=_("Lottery"), required=False)
    waitlist_max_party_size = forms.IntegerField(
        label=_("Largest party"),
        required=False,
        min_value=1,
        max_value=WAITLIST_PARTY_MAX,
        initial=1,
        help_text=_("Seats one person may queue for, themselves included (1 to 10)."),
    )
    waitlist_party_policy = forms.ChoiceField(
        label=_("Party policy"),
        choices=[
            ("strict", _("Strict: wait until the first party fits")),
            ("fill", _("Fill: smaller parties may go first")),
        ],
        initial="strict",
        required=False,
    )
    waitlist_cutoff_date = forms.DateTimeField(
        label=_("Cutoff"),
        required=False,
        input_formats=[LOCAL_FORMAT, "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=LOCAL_FORMAT),
    )

    def __init__(
        self, *args: Any, zone: str, saved_cutoff: datetime | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.zone = zoneinfo.ZoneInfo(zone)
        #: A cutoff already saved may have passed (its final round went out); it stays.
        self.saved_cutoff = saved_cutoff
        cutoff = self.fields["waitlist_cutoff_date"]
        cutoff.help_text = _("Date and time in %(zone)s, still to come; empty: no cutoff.") % {
            "zone": zone
        }

    @classmethod
    def for_settings(cls, settings: Any, zone: str) -> "WaitlistSettingsForm":
        """The form showing the saved settings (an Event, or anything with its fields)."""
        window = settings.waitlist_time_window
        cutoff = settings.waitlist_cutoff_date
        initial = {
            "waitlist_open": settings.waitlist_open,
            "waitlist_time_window": None if window is None else _hours(window),
            "waitlist_batch_size": settings.waitlist_batch_size,
            "waitlist_lottery_mode": settings.waitlist_lottery_mode,
            "waitlist_max_party_size": settings.waitlist_max_party_size,
            "waitlist_party_policy": settings.waitlist_party_policy,
            "waitlist_cutoff_date": None
            if cutoff is None
            else cutoff.astimezone(zoneinfo.ZoneInfo(zone)).replace(tzinfo=None),
        }
        return cls(initial=initial, zone=zone)

    def clean_waitlist_cutoff_date(self) -> datetime | None:
        """The typed wall-clock time is in the page's zone (not the server's)."""
        value: datetime | None = self.cleaned_data.get("waitlist_cutoff_date")
        if value is None:
            return None
        cutoff = value.replace(tzinfo=None).replace(tzinfo=self.zone)
        if cutoff < now() and not _same_minute(cutoff, self.saved_cutoff):
            raise forms.ValidationError(
                _("The cutoff is in the past: choose a time still to come."), code="past"
            )
        return cutoff

    def api_data(self) -> dict[str, Any]:
        """The cleaned values as the API's settings body (every field)."""
        data = self.cleaned_data
        hours = data["waitlist_time_window"]
        return {
            "waitlist_open": data["waitlist_open"],
            "waitlist_time_window": None if hours is None else timedelta(hours=float(hours)),
            "waitlist_batch_size": data["waitlist_batch_size"],
            "waitlist_lottery_mode": data["waitlist_lottery_mode"],
            "waitlist_cutoff_date": data["waitlist_cutoff_date"],
            # Left out when not sent (a form of before the party settings): unchanged.
            **{
                name: data[name]
                for name in ("waitlist_max_party_size", "waitlist_party_policy")
                if data.get(name) not in (None, "")
            },
        }

    def add_api_errors(self, errors: dict[str, list[str]]) -> None:
        """Errors of the schema or the service, each next to its field."""
        for field, messages in errors.items():
            self.add_error(field if field in self.fields else None, messages)


def _hours(window: timedelta) -> Decimal:
    """The window in hours as the field shows it: "48", "1.5" (no trailing zeros)."""
    hours = (Decimal(int(window.total_seconds())) / Decimal(3600)).quantize(Decimal("0.01"))
    return hours.to_integral() if hours == hours.to_integral() else hours.normalize()


def _same_minute(moment: datetime, saved: datetime | None) -> bool:
    """The form shows minutes: the saved cutoff comes back without its seconds."""
    return saved is not None and moment.replace(second=0, microsecond=0) == saved.replace(
        second=0, microsecond=0
    )
