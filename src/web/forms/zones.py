"""The time-zone choice every form offers (event, organisation, series, profile).

About 600 zones: Django renders each `<option>` through its own template, which cost
more than a whole page's budget (docs/spec/ui.md "Fast"; bench rows h5c, the event form;
figures in docs/bench.md). `ZoneSelect` escapes the options once per process and marks
the chosen one, so the select costs next to nothing.
"""

import zoneinfo
from functools import cache
from typing import Any

from django import forms
from django.forms.utils import flatatt
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe


@cache
def zone_choices() -> list[tuple[str, str]]:
    """Every IANA zone name (and UTC), as the value and as its label."""
    return [(name, name) for name in sorted(zoneinfo.available_timezones() | {"UTC"})]


@cache
def _zone_options() -> dict[str, str]:
    return {
        value: format_html('<option value="{}">{}</option>', value, label)
        for value, label in zone_choices()
    }


class ZoneSelect(forms.Select):
    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        final = self.build_attrs(self.attrs, {**(attrs or {}), "name": name})
        chosen = (self.format_value(value) or [""])[0]
        body = "".join(
            option.replace('">', '" selected>', 1) if zone == chosen else option
            for zone, option in _zone_options().items()
        )
        return mark_safe(f"<select{flatatt(final)}>{body}</select>")  # options escaped above


def zone_field(label: str | Any, **options: Any) -> forms.ChoiceField:
    return forms.ChoiceField(label=label, choices=zone_choices, widget=ZoneSelect, **options)
