from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from accounts.models import User
from events.core.tests.factories import make_event, make_org
from events.models import Event, EventWaitList, Venue


@pytest.mark.django_db
class TestEventDefaults:
    def test_empty_end_is_start_plus_one_day_and_timezone_follows_organization(self) -> None:
        org = make_org(timezone="Europe/Vienna")
        event = make_event(org)
        assert event.end == event.start + timedelta(days=1)
        assert event.timezone == "Europe/Vienna"
        assert event.check_in_starts_at == event.start - timedelta(hours=1)
        assert event.check_in_ends_at == event.end

    def test_waitlist_defaults_keep_events_in_legacy_mode(self) -> None:
        event = make_event()
        assert event.waitlist_open is False
        assert event.waitlist_time_window is None
        assert event.waitlist_batch_size == 0
        assert event.waitlist_cutoff_date is None
        assert event.waitlist_lottery_mode is False


@pytest.mark.django_db
class TestEffectiveCapacity:
    @pytest.mark.parametrize(
        ("max_attendees", "venue_capacity", "expected"),
        [(0, None, 0), (10, None, 10), (0, 8, 8), (10, 8, 8), (5, 8, 5), (10, 0, 10)],
    )
    def test_smallest_non_empty_limit_wins(
        self, max_attendees: int, venue_capacity: int | None, expected: int
    ) -> None:
        org = make_org()
        venue = Venue.objects.create(organization=org, name="Hall", capacity=venue_capacity)
        event = make_event(org, max_attendees=max_attendees, venue=venue)
        assert event.effective_capacity == expected


@pytest.mark.django_db
class TestEventClean:
    def _errors(self, event: Event | None = None, **fields: object) -> dict[str, list[str]]:
        event = event or make_event()
        for key, value in fields.items():
            setattr(event, key, value)
        with pytest.raises(ValidationError) as exc:
            event.full_clean()
        return exc.value.message_dict

    @pytest.mark.parametrize("window", [timedelta(minutes=59), timedelta(days=7, seconds=1)])
    def test_window_outside_one_hour_to_seven_days_is_refused(self, window: timedelta) -> None:
        assert "waitlist_time_window" in self._errors(waitlist_time_window=window)

    def test_cutoff_without_window_is_refused(self) -> None:
        event = make_event()
        assert "waitlist_cutoff_date" in self._errors(
            event, waitlist_cutoff_date=event.start - timedelta(hours=2)
        )

    def test_cutoff_at_start_is_refused(self) -> None:
        event = make_event()
        errors = self._errors(
            event, waitlist_time_window=timedelta(hours=2), waitlist_cutoff_date=event.start
        )
        assert "waitlist_cutoff_date" in errors

    def test_end_before_start_is_refused(self) -> None:
        event = make_event()
        assert "end" in self._errors(event, end=event.start - timedelta(minutes=1))

    def test_invalid_timezone_is_refused(self) -> None:
        assert "timezone" in self._errors(timezone="Mars/Olympus")

    def test_valid_configuration_passes(self) -> None:
        event = make_event()
        event.waitlist_time_window = timedelta(hours=2)
        event.waitlist_cutoff_date = event.start - timedelta(hours=6)
        event.full_clean()


@pytest.mark.django_db
class TestDatabaseConstraints:
    def test_template_must_be_draft(self) -> None:
        with pytest.raises(IntegrityError), transaction.atomic():
            make_event(is_template=True, status=Event.Status.OPEN)

    def test_one_waitlist_entry_per_event_and_user(self, user: User) -> None:
        event = make_event()
        EventWaitList.objects.create(event=event, user=user)
        with pytest.raises(IntegrityError), transaction.atomic():
            EventWaitList.objects.create(event=event, user=user)
