"""The time-zone field of every form: canonical places, grouped, common ones first."""

import re

import pytest
from django import forms
from django.utils import timezone, translation

from web.forms.zones import COMMON, canonical_zones, zone_field


class ZoneForm(forms.Form):
    timezone = zone_field("Time zone")


def rendered(value: str | None = None) -> str:
    return str(ZoneForm(initial={"timezone": value} if value else {})["timezone"])


def test_only_places_are_offered() -> None:
    zones = set(canonical_zones())
    for place in ("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Europe/Kyiv"):
        assert place in zones
    for not_a_place in ("localtime", "posixrules", "Factory", "W-SU", "US/Eastern", "GB"):
        assert not_a_place not in zones
    assert not [z for z in zones if z.startswith("Etc/")]
    assert "Asia/Calcutta" not in zones and "Europe/Kiev" not in zones  # old names
    assert len(zones) > 300


def test_the_select_has_a_common_group_first_then_the_regions() -> None:
    html = rendered()
    groups = re.findall(r'<optgroup label="([^"]+)">', html)
    assert groups[0] == "Common"
    assert {"Europe", "America", "Asia", "Pacific", "Indian Ocean"} <= set(groups)
    common = html.split("</optgroup>", 1)[0]
    assert re.findall(r'value="([^"]+)"', common) == list(COMMON)
    assert 'value="Europe/Berlin">Berlin</option>' in html.split('label="Europe"')[1]
    assert ">Argentina / Buenos Aires</option>" in html
    assert "localtime" not in html and "W-SU" not in html
    assert "data-zone-select" in html


def test_the_chosen_zone_is_selected_once_and_the_viewer_s_zone_is_common() -> None:
    with timezone.override("Asia/Seoul"):
        html = rendered("Europe/Berlin")
    assert html.count(" selected") == 1
    assert '<option value="Europe/Berlin" selected>' in html
    common = html.split("</optgroup>", 1)[0]
    assert 'value="Asia/Seoul"' in common


def test_an_old_name_stored_earlier_still_shows_and_saves() -> None:
    html = rendered("Asia/Calcutta")
    assert '<option value="Asia/Calcutta" selected>' in html.split("</optgroup>", 1)[0]
    form = ZoneForm({"timezone": "Asia/Calcutta"})
    assert form.is_valid(), form.errors


@pytest.mark.parametrize("bad", ["localtime", "posixrules", "Mars/Olympus", ""])
def test_no_place_is_refused(bad: str) -> None:
    form = ZoneForm({"timezone": bad})
    assert not form.is_valid()


def test_the_regions_read_in_german() -> None:
    with translation.override("de"):
        html = rendered()
    assert 'label="Häufig"' in html and 'label="Europa"' in html
    assert 'label="Indischer Ozean"' in html
    assert 'data-filter-label="Zeitzone suchen"' in html
