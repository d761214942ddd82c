"""The time-zone choice every form offers (event, organisation, series, profile).

What is offered (ADR 0043): the zones of the tz database's `zone.tab`, its table of the
zones people live in, country by country, plus "UTC"; so never `localtime`, `Factory`,
`posixrules`, `Etc/GMT+5`, or the old names kept for compatibility (`W-SU`, `US/Eastern`,
`Asia/Calcutta`). Without the table, the Area/Location names of the continents and
oceans stand in. The options come grouped by region, with a short "Common" group first
(and the zone already chosen, so a stored old name still shows); a static script adds a
filter field, and without it the select works as it is.

About 400 options: Django renders each `<option>` through its own template, which cost
more than a whole page's budget (docs/spec/ui.md "Fast"), so `ZoneSelect` renders the
groups once per language and marks the chosen option in the string.
"""

import zoneinfo
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from django import forms
from django.forms.utils import flatatt
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, pgettext_lazy

from common.timezones import is_valid_timezone

#: The areas of Area/Location names (the tz database's continents and oceans).
AREAS = {
    "Africa": pgettext_lazy("time zone region", "Africa"),
    "America": pgettext_lazy("time zone region", "America"),
    "Antarctica": pgettext_lazy("time zone region", "Antarctica"),
    "Arctic": pgettext_lazy("time zone region", "Arctic"),
    "Asia": pgettext_lazy("time zone region", "Asia"),
    "Atlantic": pgettext_lazy("time zone region", "Atlantic"),
    "Australia": pgettext_lazy("time zone region", "Australia"),
    "Europe": pgettext_lazy("time zone region", "Europe"),
    "Indian": pgettext_lazy("time zone region", "Indian Ocean"),
    "Pacific": pgettext_lazy("time zone region", "Pacific"),
}
COMMON = (
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "Europe/Paris",
    "America/New_York",
    "America/Chicago",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Singapore",
    "Asia/Tokyo",
    "Australia/Sydney",
)


def _zone_tab() -> str | None:
    """The text of `zone.tab`: the tzdata package's, else the system's."""
    try:
        return (resources.files("tzdata.zoneinfo") / "zone.tab").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    for folder in zoneinfo.TZPATH:
        path = Path(folder) / "zone.tab"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None


def _tab_zones(text: str) -> set[str]:
    lines = (line.split("\t") for line in text.splitlines() if line and line[0] != "#")
    return {parts[2] for parts in lines if len(parts) >= 3}


@cache
def canonical_zones() -> tuple[str, ...]:
    """The zones offered, sorted: see the module docstring."""
    known = zoneinfo.available_timezones()
    text = _zone_tab()
    if text is not None:
        places = _tab_zones(text) & known
    else:
        places = {name for name in known if "/" in name and name.split("/", 1)[0] in AREAS}
    return tuple(sorted(places | {"UTC"}))


def zone_choices() -> list[tuple[str, str]]:
    """The canonical zones as (value, value); `ZoneSelect` renders the grouped labels."""
    return [(name, name) for name in canonical_zones()]


def place_label(name: str) -> str:
    """ "America/Argentina/Buenos_Aires" → "Argentina / Buenos Aires"."""
    return name.split("/", 1)[-1].replace("_", " ").replace("/", " / ")


def _options(names: Iterable[str], label: Any = None) -> str:
    return "".join(
        format_html('<option value="{}">{}</option>', name, label(name) if label else name)
        for name in names
    )


@cache
def _grouped_options(language: str | None) -> tuple[str, str]:
    """(the "Common" group's options, every region's group), in `language`."""
    zones = canonical_zones()
    regions = "".join(
        format_html('<optgroup label="{}">', str(title))
        + _options([z for z in zones if z.startswith(area + "/")], place_label)
        + "</optgroup>"
        for area, title in AREAS.items()
        if any(z.startswith(area + "/") for z in zones)
    )
    return _options(COMMON), regions


class ZoneSelect(forms.Select):
    """The zones grouped by region after a "Common" group that also holds the chosen
    zone (an old alias stored earlier included) and the viewer's own (the active zone);
    the chosen one is selected there."""

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        final = self.build_attrs(self.attrs, {**(attrs or {}), "name": name})
        final["data-zone-select"] = ""
        final["data-filter-label"] = gettext("Find a time zone")
        chosen = (self.format_value(value) or [""])[0]
        common, regions = _grouped_options(get_language())
        current = timezone.get_current_timezone_name()
        if current not in COMMON and current != chosen and current in canonical_zones():
            common = _options([current]) + common
        if chosen and chosen not in COMMON:
            common = _options([chosen]) + common
        if chosen:
            mark = format_html('<option value="{}">', chosen)
            common = common.replace(mark, mark[:-1] + " selected>", 1)
        title = format_html('<optgroup label="{}">', str(pgettext_lazy("time zones", "Common")))
        body = f"{title}{common}</optgroup>{regions}"
        return mark_safe(f"<select{flatatt(final)}>{body}</select>")  # options escaped above


class ZoneField(forms.ChoiceField):
    """The canonical zones; an old name of a real zone (stored before the list was
    narrowed) is still accepted, so a form of old data saves as it is."""

    def valid_value(self, value: Any) -> bool:
        return super().valid_value(value) or (isinstance(value, str) and is_valid_timezone(value))


def zone_field(label: str | Any, **options: Any) -> forms.ChoiceField:
    return ZoneField(label=label, choices=zone_choices, widget=ZoneSelect, **options)
