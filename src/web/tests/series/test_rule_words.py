"""The rule in words: what the public and the organiser read for an RFC 5545 rule."""

from datetime import UTC, datetime
from typing import Any

import pytest
from django.utils import translation

from events.models import RecurrenceRule
from web.views.series.rule_words import describe_rule, join_words

#: Tuesday 2 March 2027, 18:00 in Berlin (17:00 UTC, winter time).
TUESDAY_18_BERLIN = datetime(2027, 3, 2, 17, 0, tzinfo=UTC)


def rule(**fields: Any) -> RecurrenceRule:
    fields.setdefault("dtstart", TUESDAY_18_BERLIN)
    fields.setdefault("timezone", "Europe/Berlin")
    fields.setdefault("interval", 1)
    return RecurrenceRule(**fields)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"frequency": "weekly", "weekdays": [1, 3]}, "Every Tuesday and Thursday at 18:00"),
        ({"frequency": "weekly", "weekdays": []}, "Every Tuesday at 18:00"),
        (
            {"frequency": "weekly", "weekdays": [0, 2, 4], "interval": 2},
            "Every 2 weeks on Monday, Wednesday and Friday at 18:00",
        ),
        ({"frequency": "daily"}, "Every day at 18:00"),
        ({"frequency": "daily", "interval": 3}, "Every 3 days at 18:00"),
        ({"frequency": "daily", "weekdays": [5, 6]}, "Every Saturday and Sunday at 18:00"),
        (
            {"frequency": "monthly", "monthly_type": "day", "day_of_month": 15},
            "Every month on day 15 at 18:00",
        ),
        (
            {"frequency": "monthly", "monthly_type": "weekday", "nth_weekday": 2, "weekday": 1},
            "Every month on the second Tuesday at 18:00",
        ),
        (
            {
                "frequency": "monthly",
                "interval": 3,
                "monthly_type": "weekday",
                "nth_weekday": -1,
                "weekday": 4,
            },
            "Every 3 months on the last Friday at 18:00",
        ),
        ({"frequency": "yearly"}, "Every year on 2 March at 18:00"),
        ({"frequency": "yearly", "interval": 2}, "Every 2 years on 2 March at 18:00"),
        (
            {"frequency": "weekly", "weekdays": [1], "count": 10},
            "Every Tuesday at 18:00, 10 times",
        ),
        (
            {
                "frequency": "weekly",
                "weekdays": [1],
                "until": datetime(2027, 6, 29, 21, 59, tzinfo=UTC),
            },
            "Every Tuesday at 18:00, until 29 June 2027",
        ),
    ],
)
def test_a_rule_reads_as_a_sentence(fields: dict[str, Any], words: str) -> None:
    with translation.override("en"):
        assert describe_rule(rule(**fields)) == words


def test_the_time_is_the_wall_clock_time_in_the_rules_zone_in_summer_too() -> None:
    summer = datetime(2027, 7, 6, 16, 0, tzinfo=UTC)  # 18:00 CEST
    with translation.override("en"):
        assert describe_rule(rule(frequency="weekly", dtstart=summer)) == "Every Tuesday at 18:00"


def test_an_until_reads_as_the_local_date_of_the_last_moment() -> None:
    # 23:30 UTC on 29 June is already 30 June in Berlin.
    late = rule(frequency="daily", until=datetime(2027, 6, 29, 23, 30, tzinfo=UTC))
    with translation.override("en"):
        assert describe_rule(late).endswith("until 30 June 2027")


def test_lists_of_days_join_with_and() -> None:
    with translation.override("en"):
        assert join_words(["Monday"]) == "Monday"
        assert join_words(["Monday", "Friday"]) == "Monday and Friday"
        assert join_words(["A", "B", "C"]) == "A, B and C"


def test_the_sentence_is_translated() -> None:
    with translation.override("de"):
        words = describe_rule(rule(frequency="weekly", weekdays=[1, 3]))
    assert "Dienstag" in words and "Donnerstag" in words
