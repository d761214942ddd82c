"""The series builder and the cadence form: page fields → the rule the service takes.

The values are checked by `events.utils.recurrence_validators` (the functions
`RecurrenceRule.clean()` and the API schemas run), so the page accepts exactly the
rules the API accepts; its messages land next to the page field they are about.
Fields that do not apply to the chosen frequency (weekdays of a monthly rule, the end
date when "Ends" is "Never" …) are ignored rather than refused: the form shows them all.
"""

from datetime import date, datetime, time, timedelta
from typing import Any

from django import forms
from django.utils.dates import WEEKDAYS
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from common.timezones import get_zone
from events.models import RecurrenceRule
from events.series.models import DEFAULT_GENERATION_WINDOW_WEEKS, SCHEDULE_FIELDS
from events.utils import recurrence_validators as rv
from web.forms.zones import zone_field

#: A validator's field name → the page field its message is shown next to.
RULE_FIELD_OF = {
    "frequency": "frequency",
    "interval": "interval",
    "weekdays": "weekdays",
    "monthly_type": "monthly_type",
    "day_of_month": "day_of_month",
    "nth_weekday": "nth_weekday",
    "weekday": "weekday",
    "timezone": "timezone",
    "dtstart": "starts_on",
    "until": "until_date",
    "count": "count",
    "generation_window_weeks": "weeks_ahead",
}
ENDS_NEVER, ENDS_ON, ENDS_AFTER = "never", "on", "after"
#: Fields that say nothing about the dates: their errors never hide the preview.
NON_RULE_FIELDS = frozenset(
    {"name", "description", "duration", "weeks_ahead", "auto_publish", "stale"}
)


def _weekday_choices() -> list[tuple[str, str]]:
    return [(str(day), str(WEEKDAYS[day])) for day in range(7)]


class RuleForm(forms.Form):
    """The cadence: every field of the rule but its first date and time, and the window."""

    timezone = zone_field(_("Time zone"))
    frequency = forms.ChoiceField(
        label=_("Repeats"),
        choices=[
            (RecurrenceRule.Frequency.DAILY, _("Daily")),
            (RecurrenceRule.Frequency.WEEKLY, _("Weekly")),
            (RecurrenceRule.Frequency.MONTHLY, _("Monthly")),
            (RecurrenceRule.Frequency.YEARLY, _("Yearly")),
        ],
        initial=RecurrenceRule.Frequency.WEEKLY,
    )
    interval = forms.IntegerField(
        label=_("Every"),
        min_value=1,
        max_value=999,
        initial=1,
        help_text=_("1 = every day, week, month or year; 2 = every other one …"),
    )
    weekdays = forms.TypedMultipleChoiceField(
        label=_("On these days (daily and weekly)"),
        choices=_weekday_choices,
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
    monthly_type = forms.ChoiceField(
        label=_("Monthly dates"),
        choices=[
            (RecurrenceRule.MonthlyType.DAY_OF_MONTH, _("By day of the month")),
            (RecurrenceRule.MonthlyType.NTH_WEEKDAY, _("By weekday of the month")),
        ],
        initial=RecurrenceRule.MonthlyType.DAY_OF_MONTH,
        required=False,
        widget=forms.RadioSelect,
    )
    day_of_month = forms.IntegerField(
        label=_("Day of the month"), min_value=1, max_value=31, required=False
    )
    nth_weekday = forms.TypedChoiceField(
        label=_("Week of the month"),
        choices=[
            ("1", pgettext_lazy("week of the month", "First")),
            ("2", pgettext_lazy("week of the month", "Second")),
            ("3", pgettext_lazy("week of the month", "Third")),
            ("4", pgettext_lazy("week of the month", "Fourth")),
            ("-1", pgettext_lazy("week of the month", "Last")),
        ],
        coerce=int,
        required=False,
    )
    weekday = forms.TypedChoiceField(
        label=_("Day of the week"), choices=_weekday_choices, coerce=int, required=False
    )
    ends = forms.ChoiceField(
        label=pgettext_lazy("series end", "Ends"),
        choices=[
            (ENDS_NEVER, _("Never")),
            (ENDS_ON, _("On a date")),
            (ENDS_AFTER, _("After a number of dates")),
        ],
        initial=ENDS_NEVER,
        widget=forms.RadioSelect,
    )
    until_date = forms.DateField(
        label=_("End date"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    count = forms.IntegerField(label=_("Number of dates"), min_value=1, required=False)
    auto_publish = forms.BooleanField(label=_("Publish automatically"), required=False)
    weeks_ahead = forms.IntegerField(
        label=_("Weeks ahead"),
        min_value=rv.GENERATION_WINDOW_WEEKS_MIN,
        max_value=rv.GENERATION_WINDOW_WEEKS_MAX,
        initial=DEFAULT_GENERATION_WINDOW_WEEKS,
        help_text=_("How far ahead dates are created."),
    )

    #: Set by `clean()` when the whole rule is valid.
    rule: RecurrenceRule | None = None

    def start(self) -> datetime | None:
        """The rule's first date and time (the cadence form keeps the saved one)."""
        raise NotImplementedError

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self._rule_inputs_valid():
            return cleaned
        dtstart = self.start()
        fields = self._rule_fields(cleaned, dtstart)
        if not self._rule_inputs_valid():
            return cleaned
        errors = rv.recurrence_rule_errors(fields)
        for name, messages in errors.items():
            for message in messages:
                self.add_error(RULE_FIELD_OF.get(name), gettext(message))
        if not errors:
            self.rule = RecurrenceRule(**fields)
        return cleaned

    def _rule_inputs_valid(self) -> bool:
        return not set(self.errors) - NON_RULE_FIELDS

    def rule_fields(self) -> dict[str, Any]:
        """The schedule fields of the valid rule (after `is_valid()`)."""
        assert self.rule is not None
        return {name: getattr(self.rule, name) for name in SCHEDULE_FIELDS}

    def _rule_fields(self, cleaned: dict[str, Any], dtstart: datetime | None) -> dict[str, Any]:
        frequency = cleaned["frequency"]
        zone = cleaned["timezone"]
        fields: dict[str, Any] = {
            "frequency": frequency,
            "interval": cleaned["interval"],
            "timezone": zone,
            "dtstart": dtstart,
            "weekdays": sorted(set(cleaned.get("weekdays") or []))
            if frequency in rv.WEEKDAY_FREQUENCIES
            else [],
            "monthly_type": None,
            "day_of_month": None,
            "nth_weekday": None,
            "weekday": None,
            "until": None,
            "count": None,
        }
        if frequency == RecurrenceRule.Frequency.MONTHLY:
            fields.update(self._monthly(cleaned, dtstart, zone))
        ends = cleaned["ends"]
        if ends == ENDS_ON:
            if cleaned.get("until_date") is None:
                self.add_error("until_date", gettext("Give the last date."))
            else:
                fields["until"] = _end_of_day(cleaned["until_date"], zone)
        elif ends == ENDS_AFTER:
            if cleaned.get("count") is None:
                self.add_error("count", gettext("Give the number of dates."))
            fields["count"] = cleaned.get("count")
        return fields

    def _monthly(
        self, cleaned: dict[str, Any], dtstart: datetime | None, zone: str
    ) -> dict[str, Any]:
        local = dtstart.astimezone(get_zone(zone)) if dtstart is not None else None
        if cleaned.get("monthly_type") == RecurrenceRule.MonthlyType.NTH_WEEKDAY:
            weekday = cleaned.get("weekday")
            if weekday is None and local is not None:
                weekday = local.weekday()
            nth = cleaned.get("nth_weekday")
            return {
                "monthly_type": RecurrenceRule.MonthlyType.NTH_WEEKDAY,
                "nth_weekday": nth if nth is not None else 1,
                "weekday": weekday,
            }
        day = cleaned.get("day_of_month")
        if day is None and local is not None:
            day = local.day
        return {"monthly_type": RecurrenceRule.MonthlyType.DAY_OF_MONTH, "day_of_month": day}


def _end_of_day(day: date, zone: str) -> datetime:
    """The last moment of `day` in the rule's zone: a date ends the series inclusively."""
    return datetime.combine(day, time(23, 59, 59), tzinfo=get_zone(zone))


class SeriesBuilderForm(RuleForm):
    """`/manage/{org}/series/new`: the series' name, first date, time and length, and its rule."""

    name = forms.CharField(label=_("Name"), max_length=150)
    starts_on = forms.DateField(
        label=_("Starts on"), widget=forms.DateInput(attrs={"type": "date"})
    )
    time = forms.TimeField(label=_("Time"), widget=forms.TimeInput(attrs={"type": "time"}))
    duration = forms.IntegerField(
        label=_("Duration"),
        min_value=1,
        max_value=7 * 24 * 60,
        initial=60,
        help_text=_("In minutes."),
    )

    field_order = ["name", "starts_on", "time", "duration", "timezone"]

    def __init__(self, *args: Any, zone: str = "UTC", today: date | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["timezone"].initial = zone
        first = (today or date.today()) + timedelta(days=7)
        self.fields["starts_on"].initial = first.isoformat()
        self.fields["time"].initial = "18:00"

    def start(self) -> datetime | None:
        day, at, zone = (self.cleaned_data.get(k) for k in ("starts_on", "time", "timezone"))
        if day is None or at is None or zone is None:
            return None
        return datetime.combine(day, at, tzinfo=get_zone(zone))

    def template_fields(self) -> dict[str, Any]:
        """The template event of the create body: the series' name, its length, its zone."""
        start = self.start()
        assert start is not None
        return {
            "name": self.cleaned_data["name"].strip(),
            "end": start + timedelta(minutes=self.cleaned_data["duration"]),
            "timezone": self.cleaned_data["timezone"],
        }


STALE_FORM_CHOICES = [
    ("keep", _("Keep them")),
    ("cancel", _("Cancel them")),
]


def _time_field() -> forms.TimeField:
    return forms.TimeField(label=_("Time"), widget=forms.TimeInput(attrs={"type": "time"}))


def _stale_field() -> forms.ChoiceField:
    return forms.ChoiceField(
        label=_("Dates off the new cadence"),
        choices=STALE_FORM_CHOICES,
        initial="keep",
        widget=forms.RadioSelect,
    )


def _local(moment: datetime, zone: str) -> datetime:
    return moment.astimezone(get_zone(zone))


class CadenceForm(RuleForm):
    """`/manage/series/{id}/recurrence`: the cadence, the time of day and the dates'
    length; the rule's first date stays (a new time moves it on the same day)."""

    time = _time_field()
    duration = forms.IntegerField(
        label=_("Duration"),
        min_value=1,
        max_value=7 * 24 * 60,
        help_text=_("In minutes."),
    )
    stale = _stale_field()

    field_order = ["time", "duration", "timezone"]

    def __init__(self, *args: Any, rule: RecurrenceRule, **kwargs: Any):
        self.saved_rule = rule
        super().__init__(*args, **kwargs)

    def start(self) -> datetime | None:
        at, zone = self.cleaned_data.get("time"), self.cleaned_data.get("timezone")
        if at is None or zone is None:
            return None
        day = _local(self.saved_rule.dtstart, self.saved_rule.timezone).date()
        return datetime.combine(day, at, tzinfo=get_zone(zone))

    def rule_changes(self) -> dict[str, Any]:
        """The schedule fields as chosen here (the recurrence PATCH's fields); `dtstart`
        only when the time of day changed."""
        fields = self.rule_fields()
        if fields["dtstart"] == self.saved_rule.dtstart:
            del fields["dtstart"]
        return fields

    def duration_minutes(self) -> int:
        return int(self.cleaned_data["duration"])


def cadence_initial(
    rule: RecurrenceRule, auto_publish: bool, weeks: int, duration: timedelta
) -> dict[str, Any]:
    """The cadence form filled with the saved rule and the template's length."""
    ends = ENDS_AFTER if rule.count is not None else ENDS_ON if rule.until else ENDS_NEVER
    until = _local(rule.until, rule.timezone).date() if rule.until else None
    return {
        "time": _local(rule.dtstart, rule.timezone).strftime("%H:%M"),
        "duration": int(duration.total_seconds() // 60),
        "timezone": rule.timezone,
        "frequency": rule.frequency,
        "interval": rule.interval,
        "weekdays": [str(day) for day in rule.weekdays or []],
        "monthly_type": rule.monthly_type or RecurrenceRule.MonthlyType.DAY_OF_MONTH,
        "day_of_month": rule.day_of_month,
        "nth_weekday": rule.nth_weekday,
        "weekday": rule.weekday,
        "ends": ends,
        "until_date": until,
        "count": rule.count,
        "auto_publish": auto_publish,
        "weeks_ahead": weeks,
        "stale": "keep",
    }


class SplitForm(RuleForm):
    """`/manage/series/{id}/split`: from a date on, a new series with its own rule and
    template; the old one keeps the dates before. The window and publishing carry over
    (the split takes no such fields), so the form does not offer them."""

    starts_on = forms.DateField(
        label=_("Starts on"), widget=forms.DateInput(attrs={"type": "date"})
    )
    time = _time_field()
    name = forms.CharField(label=_("Name"), max_length=200)
    description = forms.CharField(label=_("Description"), required=False, widget=forms.Textarea)
    stale = _stale_field()

    field_order = ["starts_on", "time", "timezone"]

    def __init__(self, *args: Any, rule: RecurrenceRule | None = None, **kwargs: Any):
        self.old_rule = rule
        super().__init__(*args, **kwargs)
        del self.fields["auto_publish"], self.fields["weeks_ahead"]

    def start(self) -> datetime | None:
        day, at, zone = (self.cleaned_data.get(k) for k in ("starts_on", "time", "timezone"))
        if day is None or at is None or zone is None:
            return None
        return datetime.combine(day, at, tzinfo=get_zone(zone))

    def split_from(self, now: datetime) -> datetime:
        """The split's `from`: the start of the chosen day in the new zone (so that day's
        date moves whatever its time), or now when the day has begun."""
        day, zone = self.cleaned_data["starts_on"], self.cleaned_data["timezone"]
        return max(datetime.combine(day, time(0, 0), tzinfo=get_zone(zone)), now)

    def rule_changes(self) -> dict[str, Any]:
        """The new anchor, and the rule fields that differ from the old rule's (an
        unchanged end is the service's to carry over: what is left of a count)."""
        fields = self.rule_fields()
        old = self.old_rule.schedule() if self.old_rule is not None else {}
        return {k: v for k, v in fields.items() if k == "dtstart" or k not in old or old[k] != v}

    def template_changes(self, name: str, description: str) -> dict[str, Any]:
        """The template fields that differ from the old template's."""
        chosen = {
            "name": self.cleaned_data["name"].strip(),
            "description": self.cleaned_data["description"],
        }
        old = {"name": name, "description": description}
        return {k: v for k, v in chosen.items() if v != old[k]}


def split_initial(rule: RecurrenceRule, day: date, name: str, description: str) -> dict[str, Any]:
    """The split form from `day` on: the series' rule, time and template as they are."""
    initial = cadence_initial(rule, False, 1, timedelta(0))
    for field in ("auto_publish", "weeks_ahead", "duration"):
        del initial[field]
    return {**initial, "starts_on": day, "name": name, "description": description}


PROPAGATE_CHOICES = [
    ("none", _("Only the template")),
    ("future_unmodified", _("Future unmodified occurrences")),
    ("all_future", _("All future occurrences")),
]


class TemplateForm(forms.Form):
    """`/manage/series/{id}/template`: the template's text and where the change goes."""

    name = forms.CharField(label=_("Name"), max_length=200)
    description = forms.CharField(label=_("Description"), required=False, widget=forms.Textarea)
    propagate = forms.ChoiceField(
        label=_("Apply the change to"),
        choices=PROPAGATE_CHOICES,
        initial="future_unmodified",
        widget=forms.RadioSelect,
    )
