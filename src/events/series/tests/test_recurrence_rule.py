"""RecurrenceRule: wall-clock time across DST, RFC 5545 examples, rrule_string, validation.

The RFC 5545 examples (§3.8.5.3) are the ones the rule's fields can express; their
expected dates are copied from the RFC, at 09:00 America/New_York.
"""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from dateutil.rrule import rrulestr
from django.core.exceptions import ValidationError

from events.models import RecurrenceRule
from events.series.tests.recurrence_builders import make_rule, utc
from events.utils import recurrence_validators as v

pytestmark = pytest.mark.django_db

VIENNA = ZoneInfo("Europe/Vienna")
NEW_YORK = ZoneInfo("America/New_York")
RFC_START = datetime(1997, 9, 2, 9, 0, tzinfo=NEW_YORK)  # Tuesday, 09:00 EDT


def rule(**fields) -> RecurrenceRule:
    """An unsaved rule (no database needed for the expansion)."""
    fields.setdefault("frequency", "weekly")
    fields.setdefault("interval", 1)
    fields.setdefault("weekdays", [])
    fields.setdefault("timezone", "UTC")
    return RecurrenceRule(**fields)


def local_times(instants: list[datetime], zone: ZoneInfo) -> list[tuple[int, int, int, int, int]]:
    return [
        (local.year, local.month, local.day, local.hour, local.minute)
        for local in (instant.astimezone(zone) for instant in instants)
    ]


def everything(r: RecurrenceRule, years: int = 3) -> list[datetime]:
    return r.get_occurrences(
        r.dtstart - timedelta(seconds=1), r.dtstart + timedelta(days=365 * years)
    )


# -- wall-clock time across daylight-saving switches ------------------------------------------
class TestWallClockAcrossDST:
    def test_mondays_10_vienna_are_09_utc_in_winter_and_08_utc_in_summer(self):
        mondays = rule(
            weekdays=[0], timezone="Europe/Vienna", dtstart=datetime(2026, 1, 5, 10, tzinfo=VIENNA)
        )
        spring = mondays.get_occurrences(utc(2026, 3, 22), utc(2026, 4, 1))
        autumn = mondays.get_occurrences(utc(2026, 10, 18), utc(2026, 10, 28))
        assert spring == [utc(2026, 3, 23, 9), utc(2026, 3, 30, 8)]  # switch on 29 March
        assert autumn == [utc(2026, 10, 19, 8), utc(2026, 10, 26, 9)]  # switch on 25 October
        assert {local[3] for local in local_times(spring + autumn, VIENNA)} == {10}

    def test_mondays_10_new_york_are_15_utc_in_winter_and_14_utc_in_summer(self):
        mondays = rule(
            weekdays=[0],
            timezone="America/New_York",
            dtstart=datetime(2026, 1, 5, 10, tzinfo=NEW_YORK),
        )
        spring = mondays.get_occurrences(utc(2026, 3, 1), utc(2026, 3, 11))
        autumn = mondays.get_occurrences(utc(2026, 10, 25), utc(2026, 11, 4))
        assert spring == [utc(2026, 3, 2, 15), utc(2026, 3, 9, 14)]  # switch on 8 March
        assert autumn == [utc(2026, 10, 26, 14), utc(2026, 11, 2, 15)]  # switch on 1 November

    def test_a_daily_rule_keeps_its_hour_through_the_switch_night(self):
        daily = rule(
            frequency="daily",
            timezone="Europe/Vienna",
            dtstart=datetime(2026, 3, 27, 10, tzinfo=VIENNA),
            count=4,
        )
        assert local_times(everything(daily), VIENNA) == [
            (2026, 3, 27, 10, 0),
            (2026, 3, 28, 10, 0),
            (2026, 3, 29, 10, 0),
            (2026, 3, 30, 10, 0),
        ]
        assert [instant.hour for instant in everything(daily)] == [9, 9, 8, 8]

    def test_a_local_time_missing_on_the_spring_switch_takes_the_offset_before_it(self):
        at_0230 = rule(
            frequency="daily",
            timezone="Europe/Vienna",
            dtstart=datetime(2026, 3, 28, 2, 30, tzinfo=VIENNA),
            count=2,
        )
        # 02:30 does not exist on 29 March in Vienna: it is read as 02:30 CET = 01:30 UTC.
        assert everything(at_0230) == [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30)]


# -- RFC 5545 examples the fields can express ---------------------------------------------------
class TestRfc5545Examples:
    def test_daily_for_10_occurrences(self):
        daily = rule(frequency="daily", count=10, timezone="America/New_York", dtstart=RFC_START)
        assert [local[2] for local in local_times(everything(daily), NEW_YORK)] == list(
            range(2, 12)
        )

    def test_daily_until_december_24_1997_crosses_the_autumn_switch(self):
        daily = rule(
            frequency="daily",
            until=utc(1997, 12, 24),
            timezone="America/New_York",
            dtstart=RFC_START,
        )
        instants = everything(daily)
        assert len(instants) == 113
        assert local_times(instants[-1:], NEW_YORK) == [(1997, 12, 23, 9, 0)]
        assert {local[3] for local in local_times(instants, NEW_YORK)} == {9}
        assert instants[0].hour == 13 and instants[-1].hour == 14  # EDT, then EST

    def test_every_10_days_5_occurrences(self):
        every_ten = rule(
            frequency="daily", interval=10, count=5, timezone="America/New_York", dtstart=RFC_START
        )
        assert [local[1:3] for local in local_times(everything(every_ten), NEW_YORK)] == [
            (9, 2),
            (9, 12),
            (9, 22),
            (10, 2),
            (10, 12),
        ]

    def test_every_other_week_on_tuesday_and_thursday_for_8_occurrences(self):
        tue_thu = rule(
            interval=2, weekdays=[1, 3], count=8, timezone="America/New_York", dtstart=RFC_START
        )
        assert [local[1:3] for local in local_times(everything(tue_thu), NEW_YORK)] == [
            (9, 2),
            (9, 4),
            (9, 16),
            (9, 18),
            (9, 30),
            (10, 2),
            (10, 14),
            (10, 16),
        ]

    def test_monthly_on_the_first_friday_for_10_occurrences(self):
        first_friday = rule(
            frequency="monthly",
            monthly_type="weekday",
            nth_weekday=1,
            weekday=4,
            count=10,
            timezone="America/New_York",
            dtstart=datetime(1997, 9, 5, 9, tzinfo=NEW_YORK),
        )
        assert [local[:3] for local in local_times(everything(first_friday), NEW_YORK)] == [
            (1997, 9, 5),
            (1997, 10, 3),
            (1997, 11, 7),
            (1997, 12, 5),
            (1998, 1, 2),
            (1998, 2, 6),
            (1998, 3, 6),
            (1998, 4, 3),
            (1998, 5, 1),
            (1998, 6, 5),
        ]

    def test_monthly_on_the_last_friday(self):
        last_friday = rule(
            frequency="monthly",
            monthly_type="weekday",
            nth_weekday=-1,
            weekday=4,
            count=6,
            timezone="Europe/Vienna",
            dtstart=datetime(2026, 1, 30, 19, tzinfo=VIENNA),
        )
        assert [local[1:4] for local in local_times(everything(last_friday), VIENNA)] == [
            (1, 30, 19),
            (2, 27, 19),
            (3, 27, 19),
            (4, 24, 19),
            (5, 29, 19),
            (6, 26, 19),
        ]

    def test_the_15th_of_each_month_until_a_date(self):
        fifteenth = rule(
            frequency="monthly",
            monthly_type="day",
            day_of_month=15,
            until=datetime(2026, 4, 15, 18, tzinfo=VIENNA),  # the last one itself included
            timezone="Europe/Vienna",
            dtstart=datetime(2026, 1, 15, 18, tzinfo=VIENNA),
        )
        assert [local[1:3] for local in local_times(everything(fifteenth), VIENNA)] == [
            (1, 15),
            (2, 15),
            (3, 15),
            (4, 15),
        ]

    def test_the_31st_skips_shorter_months_as_rfc_5545_says(self):
        thirty_first = rule(
            frequency="monthly",
            monthly_type="day",
            day_of_month=31,
            count=3,
            dtstart=utc(2026, 1, 31, 12),
        )
        assert [i.month for i in everything(thirty_first)] == [1, 3, 5]

    def test_yearly_on_the_start_date_and_a_29_february_only_in_leap_years(self):
        yearly = rule(frequency="yearly", count=3, dtstart=utc(2026, 3, 10, 18))
        leap = rule(frequency="yearly", count=2, dtstart=utc(2024, 2, 29, 18))
        assert everything(yearly) == [
            utc(2026, 3, 10, 18),
            utc(2027, 3, 10, 18),
            utc(2028, 3, 10, 18),
        ]
        assert everything(leap, years=9) == [utc(2024, 2, 29, 18), utc(2028, 2, 29, 18)]

    def test_count_bounds_the_series_whatever_window_is_asked(self):
        weekly = rule(weekdays=[0], count=3, dtstart=utc(2026, 1, 5, 9))
        assert weekly.get_occurrences(utc(2026, 1, 6), utc(2027, 1, 1)) == [
            utc(2026, 1, 12, 9),
            utc(2026, 1, 19, 9),
        ]

    def test_until_is_inclusive_and_a_later_instant_is_not_produced(self):
        weekly = rule(weekdays=[0], until=utc(2026, 1, 19, 9), dtstart=utc(2026, 1, 5, 9))
        assert everything(weekly) == [utc(2026, 1, 5, 9), utc(2026, 1, 12, 9), utc(2026, 1, 19, 9)]
        weekly.until = utc(2026, 1, 19, 8, 59)
        assert everything(weekly)[-1] == utc(2026, 1, 12, 9)

    def test_get_occurrences_keeps_strict_bounds(self):
        weekly = rule(weekdays=[0], dtstart=utc(2026, 1, 5, 9))
        assert weekly.get_occurrences(utc(2026, 1, 5, 9), utc(2026, 1, 19, 9)) == [
            utc(2026, 1, 12, 9)
        ]
        assert all(
            i.tzinfo == UTC for i in weekly.get_occurrences(utc(2026, 1, 1), utc(2026, 2, 1))
        )


# -- rrule_string ----------------------------------------------------------------------------
class TestRruleString:
    def test_every_other_week_tuesday_thursday_with_a_count(self):
        saved = make_rule(
            interval=2, weekdays=[3, 1], count=8, timezone="America/New_York", dtstart=RFC_START
        )
        assert saved.rrule_string == (
            "DTSTART;TZID=America/New_York:19970902T090000\n"
            "RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=8;BYDAY=TU,TH"
        )
        assert saved.weekdays == [1, 3]

    def test_until_is_written_in_utc_and_dtstart_in_the_local_zone(self):
        saved = make_rule(
            weekdays=[0],
            dtstart=datetime(2026, 1, 5, 10, tzinfo=VIENNA),
            until=datetime(2026, 12, 31, 23, 59, tzinfo=VIENNA),
        )
        assert saved.rrule_string == (
            "DTSTART;TZID=Europe/Vienna:20260105T100000\n"
            "RRULE:FREQ=WEEKLY;UNTIL=20261231T225900Z;BYDAY=MO"
        )

    @pytest.mark.parametrize(
        ("fields", "rrule_line"),
        [
            (
                {"monthly_type": "weekday", "nth_weekday": -1, "weekday": 4},
                "RRULE:FREQ=MONTHLY;BYDAY=-1FR",
            ),
            ({"monthly_type": "day", "day_of_month": 15}, "RRULE:FREQ=MONTHLY;BYMONTHDAY=15"),
            ({"frequency": "yearly", "interval": 2}, "RRULE:FREQ=YEARLY;INTERVAL=2"),
            (
                {"frequency": "daily", "weekdays": [0, 1, 2, 3, 4]},
                "RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
            ),
        ],
    )
    def test_rule_parts(self, fields, rrule_line):
        fields.setdefault("frequency", "monthly")
        assert make_rule(**fields).rrule_string.splitlines()[1] == rrule_line

    def test_is_recomputed_on_every_save(self):
        saved = make_rule(weekdays=[0])
        saved.interval = 3
        saved.weekdays = [4]
        saved.save(update_fields=["interval"])
        saved.refresh_from_db()
        assert saved.rrule_string.endswith("RRULE:FREQ=WEEKLY;INTERVAL=3;BYDAY=FR")

    @pytest.mark.parametrize(
        "fields",
        [
            {"weekdays": [0, 3], "timezone": "Europe/Vienna"},
            {"interval": 2, "weekdays": [1, 3], "count": 8, "timezone": "America/New_York"},
            {"frequency": "monthly", "monthly_type": "weekday", "nth_weekday": -1, "weekday": 4},
            {"frequency": "daily", "until": utc(2026, 5, 1), "timezone": "Europe/Vienna"},
        ],
    )
    def test_dateutil_reads_it_back_to_the_same_instants(self, fields):
        saved = make_rule(**fields)
        window = (utc(2026, 1, 1), utc(2026, 12, 31))
        parsed = rrulestr(saved.rrule_string).between(*window)
        assert [i.astimezone(UTC) for i in parsed] == saved.get_occurrences(*window)


# -- validation ------------------------------------------------------------------------------
def errors_of(**fields) -> dict[str, list[str]]:
    base = {"frequency": "weekly", "dtstart": utc(2026, 1, 5, 9)}
    return v.recurrence_rule_errors({**base, **fields})


class TestValidators:
    def test_a_plain_weekly_rule_is_valid(self):
        assert errors_of(weekdays=[0, 2, 4], timezone="Europe/Vienna") == {}

    @pytest.mark.parametrize("weekdays", [[7], [-1], ["mo"], [True], "0,1"])
    def test_weekdays_are_numbers_0_to_6(self, weekdays):
        assert "weekdays" in errors_of(weekdays=weekdays)

    def test_weekdays_belong_to_daily_and_weekly_rules(self):
        assert "weekdays" in errors_of(frequency="monthly", weekdays=[0])
        assert errors_of(frequency="daily", weekdays=[0]) == {}

    @pytest.mark.parametrize("day", [None, 0, 32, "15"])
    def test_a_day_of_month_rule_needs_a_day_from_1_to_31(self, day):
        assert "day_of_month" in errors_of(
            frequency="monthly", monthly_type="day", day_of_month=day
        )

    @pytest.mark.parametrize(
        ("nth", "weekday"), [(None, 4), (5, 4), (0, 4), (-2, 4), (1, None), (1, 7)]
    )
    def test_an_nth_weekday_rule_needs_nth_in_1_2_3_4_or_last_and_a_weekday(self, nth, weekday):
        errors = errors_of(
            frequency="monthly", monthly_type="weekday", nth_weekday=nth, weekday=weekday
        )
        assert {"nth_weekday", "weekday"} & errors.keys()

    def test_monthly_parameters_must_match_the_monthly_type(self):
        assert "weekday" in errors_of(
            frequency="monthly", monthly_type="day", day_of_month=3, weekday=1
        )
        assert "day_of_month" in errors_of(frequency="monthly", day_of_month=3)
        assert "monthly_type" in errors_of(monthly_type="day", day_of_month=3)
        assert "monthly_type" in errors_of(frequency="monthly", monthly_type="week")

    def test_at_most_one_of_until_and_count(self):
        assert "count" in errors_of(until=utc(2026, 6, 1), count=3)
        assert errors_of(until=utc(2026, 6, 1)) == errors_of(count=3) == {}

    def test_until_must_be_after_dtstart(self):
        assert "until" in errors_of(until=utc(2026, 1, 5, 9))
        assert "until" in errors_of(until=utc(2025, 1, 1))

    @pytest.mark.parametrize("zone", ["Mars/Olympus", "CET+1", "", None])
    def test_the_timezone_must_be_a_real_iana_zone(self, zone):
        assert "timezone" in errors_of(timezone=zone)

    @pytest.mark.parametrize("interval", [0, -1, 1.5, None])
    def test_the_interval_is_at_least_1(self, interval):
        assert "interval" in errors_of(interval=interval)

    def test_count_is_at_least_1_and_frequency_is_known(self):
        assert "count" in errors_of(count=0)
        assert "frequency" in errors_of(frequency="hourly")
        assert "dtstart" in errors_of(dtstart=None)

    @pytest.mark.parametrize(("weeks", "ok"), [(1, True), (52, True), (0, False), (53, False)])
    def test_the_generation_window_is_1_to_52_weeks(self, weeks, ok):
        assert (v.generation_window_weeks_error(weeks) is None) is ok

    def test_the_model_clean_uses_the_same_rules(self):
        bad = rule(
            frequency="monthly",
            monthly_type="weekday",
            nth_weekday=5,
            weekday=1,
            dtstart=utc(2026, 1, 1),
        )
        with pytest.raises(ValidationError) as refused:
            bad.full_clean()
        assert "nth_weekday" in refused.value.message_dict

    def test_the_database_refuses_two_ends(self):
        from django.db import IntegrityError, transaction

        both = rule(dtstart=utc(2026, 1, 1), until=utc(2026, 6, 1), count=2)
        with pytest.raises(IntegrityError), transaction.atomic():
            both.save()
