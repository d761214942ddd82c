"""Human times in the active language: dates with German names, relative phrasing."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import formats, translation
from hypothesis import given, settings
from hypothesis import strategies as st

from common import human_time
from common.human_time import format_human, humanize_time_remaining, humanize_until
from common.timezones import format_in_zone

MOMENT = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)  # a Tuesday


def test_english_reads_as_format_in_zone() -> None:
    with translation.override("en"):
        assert format_human(MOMENT, "Europe/Vienna") == format_in_zone(MOMENT, "Europe/Vienna")
        assert format_human(MOMENT, "Europe/Vienna") == "Tue 1 Dec 2026, 19:00 CET"


def test_german_uses_german_day_and_month_names() -> None:
    with translation.override("de"):
        assert format_human(MOMENT, "Europe/Vienna") == "Dienstag, 1. Dezember 2026, 19:00 CET"
        assert format_human(MOMENT.replace(month=7), "Europe/Berlin").startswith(
            "Mittwoch, 1. Juli"
        )


@pytest.mark.parametrize(
    ("delta", "english", "german"),
    [
        (timedelta(0), "now", "jetzt"),
        (timedelta(seconds=30), "in less than a minute", "in weniger als einer Minute"),
        (timedelta(minutes=1), "in 1 minute", "in 1 Minute"),
        (timedelta(minutes=23, seconds=59), "in 23 minutes", "in 23 Minuten"),
        (timedelta(hours=23, minutes=59), "in 23 hours", "in 23 Stunden"),
        (timedelta(days=3, hours=5), "in 3 days", "in 3 Tagen"),
    ],
)
def test_relative_phrasing_in_both_languages(delta: timedelta, english: str, german: str) -> None:
    with translation.override("en"):
        assert humanize_time_remaining(delta) == english
        assert humanize_until(MOMENT + delta, MOMENT) == english
    with translation.override("de"):
        assert humanize_time_remaining(delta) == german
        assert humanize_until(MOMENT + delta, MOMENT) == german


@settings(max_examples=300, deadline=None)
@given(
    moment=st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1)),
    language=st.sampled_from(["en", "de"]),
    zone=st.sampled_from(["UTC", "Europe/Vienna", "America/New_York", "Asia/Kathmandu"]),
    layout=st.sampled_from(["D j M Y, H:i", "l, j. F Y, H:i", "d.m.Y G:i", "\\D\\a\\y j"]),
)
def test_the_quick_formatter_writes_what_djangos_date_format_writes(
    moment: datetime, language: str, zone: str, layout: str
) -> None:
    """`m` is not one of its parts: that layout takes Django's path, and must read the same."""
    aware = moment.replace(tzinfo=UTC)
    with translation.override(language):
        local = aware.astimezone(human_time.get_zone(zone))
        expected = f"{formats.date_format(local, layout)} {local.tzname()}"
        assert human_time._layout_formatter(language, layout, zone)(aware) == expected
