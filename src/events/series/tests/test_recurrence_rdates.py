"""The recurrence set with extra dates, at the rule: `get_occurrences` adds the series'
rdates (not bounded by UNTIL, as RFC 5545 says), `first_occurrence_from` finds a split's
new start, and `rrule_string` writes RDATE lines a calendar library reads back."""

from datetime import datetime, timedelta

import pytest

from events.models import EventSeries, RecurrenceRule
from events.series.tests.recurrence_builders import expand_rule_text, make_rule, make_series, utc

pytestmark = pytest.mark.django_db

#: 25 October 2026, Vienna falls back at 03:00 CEST: 02:30 happens twice.
FIRST_0230 = utc(2026, 10, 25, 0, 30)
SECOND_0230 = utc(2026, 10, 25, 1, 30)


def _with_rdates(*instants: object, **rule_fields: object) -> RecurrenceRule:
    series = make_series(rule=make_rule(**rule_fields))
    series.rdates = [instant.isoformat() for instant in instants]  # type: ignore[attr-defined]
    series.save(update_fields=["rdates"])
    rule = EventSeries.objects.select_related("recurrence_rule").get(pk=series.pk).recurrence_rule
    assert rule is not None
    rule.save()
    return rule


def _expand(rrule_string: str) -> list[datetime]:
    return expand_rule_text(rrule_string, utc(2026, 1, 1), utc(2027, 6, 1))


def test_extra_dates_join_the_rule_dates_once_each() -> None:
    wednesday = utc(2026, 1, 7, 17)
    rule = _with_rdates(wednesday, utc(2026, 1, 12, 9), count=3)
    got = rule.get_occurrences(utc(2026, 1, 1), utc(2026, 2, 1))
    assert got == [utc(2026, 1, 5, 9), wednesday, utc(2026, 1, 12, 9), utc(2026, 1, 19, 9)]
    assert wednesday not in rule.get_occurrences(utc(2026, 1, 1), utc(2026, 2, 1), rdates=())


def test_an_extra_date_after_until_still_belongs_to_the_set() -> None:
    later = utc(2026, 5, 6, 16)
    rule = _with_rdates(later, until=utc(2026, 2, 1))
    assert later in rule.get_occurrences(utc(2026, 1, 1), utc(2027, 1, 1))


def test_rrule_string_expands_to_the_same_set_including_a_fall_back_hour() -> None:
    rule = _with_rdates(utc(2026, 3, 4, 17), FIRST_0230, SECOND_0230, until=utc(2026, 12, 31))
    lines = rule.rrule_string.splitlines()
    assert lines[2] == "RDATE;TZID=Europe/Vienna:20260304T180000,20261025T023000"
    assert lines[3] == "RDATE:20261025T013000Z"  # the second 02:30 has no wall-clock name
    assert _expand(rule.rrule_string) == rule.get_occurrences(utc(2026, 1, 1), utc(2027, 6, 1))


def test_a_rule_without_extra_dates_has_no_rdate_line() -> None:
    rule = make_rule()
    assert "RDATE" not in rule.rrule_string
    assert len(rule.rrule_string.splitlines()) == 2


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (utc(2026, 1, 21), utc(2026, 1, 26, 9)),  # midweek: the next Monday
        (utc(2026, 1, 26, 9), utc(2026, 1, 26, 9)),  # on an occurrence: that one
        (utc(2026, 7, 1), utc(2026, 7, 6, 8)),  # summer time: 10:00 Vienna is 08:00 UTC
    ],
)
def test_first_occurrence_from(moment: object, expected: object) -> None:
    assert make_rule().first_occurrence_from(moment) == expected  # type: ignore[arg-type]


def test_first_occurrence_from_after_the_end_is_none() -> None:
    rule = make_rule(until=utc(2026, 2, 1))
    assert rule.first_occurrence_from(utc(2026, 2, 1) + timedelta(days=1)) is None
