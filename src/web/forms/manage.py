"""The organiser's forms: the organisation and the event, labelled with docs/spec/ui.md's names.

They check the shape of the input only; the rules (schedule, venue of the organisation,
slug taken, switching between RSVPs and tickets) stay in the services, whose refusals the
views put next to the field they name (`add_service_errors`). Times are typed in the
event's own time zone: the form reads them as wall-clock times and attaches the chosen
zone, so "18:00 Europe/Berlin" is 18:00 in Berlin whoever types it.
"""

import zoneinfo
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.timezone import now
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from common.errors import EncoreError, InvalidInput
from events.core.services import images
from events.models import Event, Organization, Venue
from web.forms.zones import zone_field

LOCAL_INPUT = "%Y-%m-%dT%H:%M"
LOCAL_FORMATS = (LOCAL_INPUT, "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S")
RSVP, TICKETS = "rsvp", "tickets"
#: Service field names → the form field that shows the message.
SERVICE_FIELDS = {"venue_id": "venue", "requires_ticket": "registration"}


class LocalDateTimeField(forms.Field):
    """A wall-clock date and time (`datetime-local`), without a zone yet."""

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format=LOCAL_INPUT)

    def to_python(self, value: Any) -> datetime | None:
        if value in self.empty_values:
            return None
        if isinstance(value, datetime):
            return value.replace(tzinfo=None)
        for pattern in LOCAL_FORMATS:
            try:
                return datetime.strptime(str(value).strip(), pattern)
            except ValueError:
                continue
        raise ValidationError(_("Enter a date and time."), code="invalid")


class OrganizationForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=150)
    timezone = zone_field(_("Time zone"), initial="UTC")
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )


#: Event.name's length in the database (the help text says it in words).
EVENT_NAME_MAX_LENGTH = Event._meta.get_field("name").max_length


class EventForm(forms.Form):
    """The event's fields; the page refuses here what a person can mistype: a new start in
    the past, an end before the start, a capacity below the seats already taken (read when
    the form is sent: a seat taken meanwhile is no oversale, since registrations check the
    capacity themselves under the event's lock). Each help text says its rule."""

    name = forms.CharField(
        label=_("Name"),
        max_length=EVENT_NAME_MAX_LENGTH,
        help_text=_("At most 200 characters."),
    )
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 4})
    )
    start = LocalDateTimeField(
        label=_("Start"), help_text=_("A new event starts in the future, not in the past.")
    )
    end = LocalDateTimeField(
        label=_("End"),
        required=False,
        help_text=_("Not before the start. Empty: a day after the start."),
    )
    timezone = zone_field(_("Time zone"))
    venue = forms.ModelChoiceField(
        label=_("Venue"), queryset=Venue.objects.none(), required=False, empty_label=_("No venue")
    )
    max_attendees = forms.IntegerField(
        label=_("Capacity"),
        min_value=0,
        required=False,
        help_text=_("0 or empty: no limit."),
    )
    visibility = forms.ChoiceField(
        label=_("Visibility"),
        # Event.Visibility's labels (derived from the names) are not translatable.
        choices=[
            (Event.Visibility.PUBLIC, _("Public")),
            (Event.Visibility.UNLISTED, _("Unlisted")),
            (Event.Visibility.PRIVATE, _("Private")),
            (Event.Visibility.MEMBERS_ONLY, _("Members Only")),
            (Event.Visibility.STAFF_ONLY, _("Staff Only")),
        ],
    )
    registration = forms.ChoiceField(
        label=_("Registration"),
        choices=[(RSVP, _("RSVP")), (TICKETS, _("Tickets"))],
        widget=forms.RadioSelect,
        initial=RSVP,
    )
    cover_image = forms.FileField(
        label=_("Cover image"),
        required=False,
        help_text=_("JPEG, PNG, GIF or WebP, up to 10 MB; shown at the top of the event page."),
        widget=forms.FileInput(attrs={"accept": "image/jpeg,image/png,image/gif,image/webp"}),
    )
    remove_cover_image = forms.BooleanField(label=_("Remove cover image"), required=False)

    def __init__(
        self,
        *args: Any,
        organization: Organization,
        has_cover: bool = False,
        event: Event | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        #: The event being edited (None for a new one): its dates and seats taken.
        self.event = event
        if not has_cover:
            del self.fields["remove_cover_image"]
        if event is not None and event.attendee_count:
            self.fields["max_attendees"].help_text = ngettext(
                "0 or empty: no limit. At least the %(count)d seat already taken.",
                "0 or empty: no limit. At least the %(count)d seats already taken.",
                event.attendee_count,
            ) % {"count": event.attendee_count}
        venues = self.fields["venue"]
        assert isinstance(venues, forms.ModelChoiceField)
        venues.queryset = Venue.objects.filter(organization=organization).order_by("name", "pk")
        self.fields["timezone"].initial = organization.timezone or "UTC"

    def clean_cover_image(self) -> images.PreparedImage | None:
        """The upload re-encoded now, so a refused picture saves nothing of the event."""
        upload = self.cleaned_data.get("cover_image")
        if not upload:
            return None
        try:
            return images.prepare_upload(upload, max_size=images.COVER_SIZE, field="cover_image")
        except InvalidInput as error:
            raise ValidationError(error.extra["errors"]["cover_image"]) from error

    def cover_change(self) -> tuple[bool, images.PreparedImage | None]:
        """(whether the cover changes, the new one or None to remove it)."""
        cover = self.cleaned_data.get("cover_image")
        if cover is not None:
            return True, cover
        return bool(self.cleaned_data.get("remove_cover_image")), None

    def clean_max_attendees(self) -> int | None:
        capacity = self.cleaned_data.get("max_attendees")
        taken = self.event.attendee_count if self.event is not None else 0
        if capacity and capacity < taken:
            raise ValidationError(
                ngettext(
                    "%(count)d seat is already taken: the capacity cannot be lower.",
                    "%(count)d seats are already taken: the capacity cannot be lower.",
                    taken,
                )
                % {"count": taken},
                code="below_taken",
            )
        return capacity

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        name = data.get("timezone")
        if name:
            zone = zoneinfo.ZoneInfo(name)
            for field in ("start", "end"):
                if isinstance(data.get(field), datetime):
                    data[field] = data[field].replace(tzinfo=zone)
        self._check_schedule(data)
        return data

    def _check_schedule(self, data: dict[str, Any]) -> None:
        start, end = data.get("start"), data.get("end")
        if start is None or start.tzinfo is None:
            return  # refused already (no date, or no zone to read it in)
        if start < now() and self._moves_start(start):
            self.add_error("start", _("The start is in the past: choose a time to come."))
        if end is not None and end < start:
            self.add_error("end", _("The end is before the start: choose a later end."))

    def _moves_start(self, start: datetime) -> bool:
        """A new event's start, or an edit that changes it (to the minute the form shows):
        an event that already began keeps its dates through an edit of other fields."""
        if self.event is None:
            return True
        return _to_minute(start) != _to_minute(self.event.start)

    def service_data(self) -> dict[str, Any]:
        """The fields as the event create / PATCH services take them."""
        data = self.cleaned_data
        venue = data.get("venue")
        fields: dict[str, Any] = {
            "name": data["name"],
            "description": data.get("description") or "",
            "start": data["start"],
            "timezone": data["timezone"],
            "venue_id": venue.pk if venue is not None else None,
            "max_attendees": data.get("max_attendees") or 0,
            "visibility": data["visibility"],
            "requires_ticket": data["registration"] == TICKETS,
        }
        if data.get("end") is not None:
            fields["end"] = data["end"]
        if self.event is not None and not self._moves_start(data["start"]):
            # The form shows minutes: an unchanged start (and end) is not sent, so an edit
            # keeps the stored times to the second and tells nobody of a "changed" start.
            del fields["start"]
            if "end" in fields and _to_minute(fields["end"]) == _to_minute(self.event.end):
                del fields["end"]
        return fields


def _to_minute(moment: datetime) -> datetime:
    return moment.replace(second=0, microsecond=0)


def event_initial(event: Event) -> dict[str, Any]:
    """The edit form's values, its times shown in the event's own zone."""
    zone = zoneinfo.ZoneInfo(event.timezone or "UTC")
    return {
        "name": event.name,
        "description": event.description,
        "start": event.start.astimezone(zone).replace(tzinfo=None),
        "end": event.end.astimezone(zone).replace(tzinfo=None) if event.end else None,
        "timezone": event.timezone or "UTC",
        "venue": event.venue_id,
        "max_attendees": event.max_attendees,
        "visibility": event.visibility,
        "registration": TICKETS if event.requires_ticket else RSVP,
    }


def add_service_errors(form: forms.Form, error: ValidationError | EncoreError) -> None:
    """A service's refusal next to the form field it names; anything else above the form.

    `full_clean` raises Django's `ValidationError`, the services' own checks
    `InvalidInput` (400, `errors` by field); other refusals (a 409) carry one message.
    """
    errors: Mapping[str, list[str]] | list[str]
    if isinstance(error, ValidationError):
        errors = error.message_dict if hasattr(error, "error_dict") else list(error.messages)
    elif isinstance(error, InvalidInput):
        errors = error.extra.get("errors", {})
    else:
        errors = [str(error.detail)]
    if not isinstance(errors, Mapping):
        form.add_error(None, list(errors))
        return
    for name, messages in errors.items():
        field = SERVICE_FIELDS.get(name, name)
        form.add_error(field if field in form.fields else None, [str(m) for m in messages])
