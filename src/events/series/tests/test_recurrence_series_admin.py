"""Template propagation, rule updates and series creation (services; the API comes later)."""

import uuid
from datetime import timedelta

import pytest
import time_machine
from django.core.exceptions import ValidationError

from accounts.tests.factories import make_user
from common.errors import Conflict, InvalidInput
from events.core.services import event_service
from events.core.tests.factories import make_org
from events.models import (
    Event,
    EventRSVP,
    EventSeries,
    RecurrenceRule,
    TicketTier,
    Venue,
)
from events.series import services as recurrence_service
from events.series.tests.recurrence_builders import (
    MONDAY_10_VIENNA,
    generate,
    make_series,
    occurrences,
    rule_of,
    template_of,
    utc,
)
from events.waitlist import services as waitlist_service
from notifications.models import Notification, NotificationType

pytestmark = pytest.mark.django_db

NEW_YEAR = utc(2026, 1, 1, 12)
#: Per-occurrence state that propagation must never touch.
OWN_STATE = (
    "start",
    "end",
    "status",
    "slug",
    "rsvp_before",
    "waitlist_cutoff_date",
    "attendee_count",
    "occurrence_index",
    "event_series_id",
    "is_modified",
    "is_template",
)


@pytest.fixture
def now():
    with time_machine.travel(NEW_YEAR, tick=False) as traveller:
        yield traveller


@pytest.fixture
def enqueued(monkeypatch) -> list[uuid.UUID]:
    calls: list[uuid.UUID] = []
    monkeypatch.setattr(waitlist_service, "enqueue_waitlist_processing", calls.append)
    return calls


def state(event: Event) -> tuple:
    fresh = Event.objects.get(pk=event.pk)
    return tuple(getattr(fresh, name) for name in OWN_STATE)


class Scene:
    """Eight Mondays from 5 January; on 20 January three are past, one future one edited."""

    def __init__(self, now, **series_fields) -> None:
        template = series_fields.pop("template", {"max_attendees": 10})
        self.series = make_series(template=template, **series_fields)
        generate(self.series)
        events = occurrences(self.series)
        self.past = events[:3]
        self.edited = events[4]
        event_service.update_event(self.edited, {"description": "Guest teacher"})
        self.untouched = [e for e in events[3:] if e.pk != self.edited.pk]
        self.before = {e.pk: state(e) for e in events}
        now.move_to(utc(2026, 1, 20))

    @property
    def template(self) -> Event:
        return template_of(self.series)

    def names(self, events) -> set[str]:
        return {Event.objects.get(pk=e.pk).name for e in events}

    def own_state_kept(self) -> bool:
        return all(state(e) == self.before[e.pk] for e in occurrences(self.series))


# -- propagation scopes ------------------------------------------------------------------------
class TestPropagation:
    def test_none_changes_only_the_template(self, now):
        scene = Scene(now)
        result = recurrence_service.update_template(scene.series, {"name": "Vinyasa"})
        assert result.template.name == scene.template.name == "Vinyasa"
        assert result.propagated_event_ids == []
        assert "Vinyasa" not in scene.names(occurrences(scene.series))

    def test_future_unmodified_reaches_future_untouched_occurrences_only(self, now):
        scene = Scene(now)
        result = recurrence_service.update_template(
            scene.series, {"name": "Vinyasa"}, propagate="future_unmodified"
        )
        assert set(result.propagated_event_ids) == {e.pk for e in scene.untouched}
        assert scene.names(scene.untouched) == {"Vinyasa"}
        assert "Vinyasa" not in scene.names([*scene.past, scene.edited])
        assert scene.own_state_kept()

    def test_all_future_reaches_edited_occurrences_too_but_not_past_ones(self, now):
        scene = Scene(now)
        result = recurrence_service.update_template(
            scene.series, {"description": "Bring water"}, propagate="all_future"
        )
        assert set(result.propagated_event_ids) == {e.pk for e in [*scene.untouched, scene.edited]}
        descriptions = {Event.objects.get(pk=e.pk).description for e in scene.past}
        assert "Bring water" not in descriptions
        assert Event.objects.get(pk=scene.edited.pk).description == "Bring water"
        assert scene.own_state_kept()

    def test_every_propagatable_field_reaches_the_occurrences(self, now):
        scene = Scene(now)
        venue = Venue.objects.create(
            organization=scene.series.organization, name="Hall", capacity=50
        )
        changes = {
            "name": "Vinyasa",
            "description": "Mats provided",
            "visibility": Event.Visibility.MEMBERS_ONLY,
            "event_type": Event.EventType.MEMBERS_ONLY,
            "requires_ticket": True,
            "max_attendees": 25,
            "venue": venue.pk,
            "visibility_settings": {"show_capacity": False},
            "waitlist_open": True,
            "waitlist_time_window": timedelta(hours=4),
            "waitlist_batch_size": 5,
            "waitlist_lottery_mode": True,
        }
        recurrence_service.update_template(scene.series, changes, propagate="future_unmodified")
        for event in [scene.template, *(Event.objects.get(pk=e.pk) for e in scene.untouched)]:
            assert event.venue_id == venue.pk
            assert event.visibility_settings == {
                "show_capacity": False,
                "show_attendee_count": True,
            }
            for name, value in changes.items():
                if name not in ("venue", "visibility_settings"):
                    assert getattr(event, name) == value, (event.pk, name)
            assert TicketTier.objects.filter(event=event).count() == 1  # General admission
        assert scene.own_state_kept()

    @pytest.mark.parametrize(
        "field",
        ["start", "end", "status", "slug", "rsvp_before", "waitlist_cutoff_date", "timezone"],
    )
    def test_fields_outside_the_whitelist_are_refused(self, now, field):
        scene = Scene(now)
        with pytest.raises(InvalidInput) as refused:
            recurrence_service.update_template(
                scene.series, {field: None, "name": "X"}, propagate="all_future"
            )
        assert field in refused.value.extra["errors"]
        assert scene.template.name != "X"

    def test_an_unknown_scope_is_refused(self, now):
        scene = Scene(now)
        with pytest.raises(InvalidInput):
            recurrence_service.update_template(scene.series, {"name": "X"}, propagate="everything")

    def test_a_refusal_midway_leaves_nothing_changed(self, now):
        scene = Scene(now, template={"waitlist_time_window": timedelta(hours=2)})
        # the last occurrence (in lock order) has a cutoff, which needs a window
        last = max(scene.untouched, key=lambda e: e.pk)
        Event.objects.filter(pk=last.pk).update(waitlist_cutoff_date=last.start - timedelta(days=1))
        with pytest.raises(ValidationError):
            recurrence_service.update_template(
                scene.series,
                {"waitlist_time_window": None, "name": "Changed"},
                propagate="future_unmodified",
            )
        assert scene.template.waitlist_time_window == timedelta(hours=2)
        assert "Changed" not in scene.names([scene.template, *scene.untouched])

    def test_a_capacity_increase_enqueues_processing_for_each_occurrence_reached(
        self, now, enqueued
    ):
        scene = Scene(now)
        recurrence_service.update_template(
            scene.series, {"max_attendees": 20}, propagate="future_unmodified"
        )
        assert sorted(enqueued) == sorted(e.pk for e in scene.untouched)

    def test_a_capacity_decrease_enqueues_nothing(self, now, enqueued):
        scene = Scene(now)
        recurrence_service.update_template(
            scene.series, {"max_attendees": 5}, propagate="all_future"
        )
        assert enqueued == []

    def test_switching_to_tickets_with_people_registered_is_refused_whole(self, now):
        scene = Scene(now)
        EventRSVP.objects.create(event=scene.untouched[-1], user=make_user(), status="yes")
        with pytest.raises(Conflict) as refused:
            recurrence_service.update_template(
                scene.series, {"requires_ticket": True}, propagate="future_unmodified"
            )
        assert refused.value.code == "has_attendees"
        assert not Event.objects.filter(event_series=scene.series, requires_ticket=True).exists()

    def test_a_propagated_venue_change_tells_the_occurrences_attendees(
        self, now, django_capture_on_commit_callbacks
    ):
        scene = Scene(now, auto_publish=True)
        guest = make_user()
        EventRSVP.objects.create(event=scene.untouched[0], user=guest, status="yes")
        venue = Venue.objects.create(organization=scene.series.organization, name="Hall")
        with django_capture_on_commit_callbacks(execute=True):
            recurrence_service.update_template(
                scene.series, {"venue": venue.pk}, propagate="future_unmodified"
            )
        updated = Notification.objects.filter(notification_type=NotificationType.EVENT_UPDATED)
        assert list(updated.values_list("user_id", flat=True)) == [guest.pk]
        assert updated.get().context["changed_fields"] == ["venue"]

    def test_another_organisations_venue_is_refused(self, now):
        scene = Scene(now)
        foreign = Venue.objects.create(organization=make_org(), name="Elsewhere")
        with pytest.raises(InvalidInput):
            recurrence_service.update_template(scene.series, {"venue": foreign.pk})

    def test_new_occurrences_pick_up_the_template(self, now):
        scene = Scene(now)
        recurrence_service.update_template(scene.series, {"name": "Vinyasa"})
        created = generate(scene.series)
        assert created and {e.name for e in created} == {"Vinyasa"}


# -- update_series_recurrence --------------------------------------------------------------------
class TestUpdateRecurrence:
    def test_an_unknown_rule_field_is_refused(self, now):
        series = make_series()
        with pytest.raises(InvalidInput):
            recurrence_service.update_series_recurrence(series, {"rrule_string": "FREQ=DAILY"})

    def test_an_invalid_rule_writes_nothing(self, now):
        series = make_series()
        generate(series)
        with pytest.raises(ValidationError):
            recurrence_service.update_series_recurrence(
                series, {"frequency": "monthly", "monthly_type": "day"}, auto_publish=True
            )
        fresh = EventSeries.objects.get(pk=series.pk)
        assert rule_of(series).frequency == "weekly"
        assert fresh.auto_publish is False
        assert fresh.last_generated_until is not None

    @pytest.mark.parametrize("weeks", [0, 53])
    def test_a_window_out_of_1_to_52_weeks_is_refused(self, now, weeks):
        series = make_series()
        with pytest.raises(ValidationError):
            recurrence_service.update_series_recurrence(series, {}, generation_window_weeks=weeks)
        assert EventSeries.objects.get(pk=series.pk).generation_window_weeks == 8

    @pytest.mark.parametrize(
        "change",
        [
            {"frequency": "daily"},
            {"interval": 2},
            {"weekdays": [2]},
            {"dtstart": MONDAY_10_VIENNA + timedelta(hours=1)},
            {"until": utc(2026, 6, 1)},
            {"count": 20},
            {"timezone": "Europe/Berlin"},
        ],
    )
    def test_each_schedule_field_resets_the_cursor_and_rrule_string(self, now, change):
        series = make_series()
        generate(series)
        before = rule_of(series).rrule_string
        recurrence_service.update_series_recurrence(series, change)
        assert EventSeries.objects.get(pk=series.pk).last_generated_until is None
        assert rule_of(series).rrule_string != before

    def test_switching_to_a_monthly_nth_weekday_rule(self, now):
        series = make_series()
        recurrence_service.update_series_recurrence(
            series,
            {"frequency": "monthly", "monthly_type": "weekday", "nth_weekday": -1, "weekday": 4},
        )
        rule = rule_of(series)
        assert rule.rrule_string.endswith("RRULE:FREQ=MONTHLY;BYDAY=-1FR")


# -- create_recurring_event_series -----------------------------------------------------------------
RULE = {
    "frequency": "weekly",
    "weekdays": [0],
    "dtstart": MONDAY_10_VIENNA,
    "timezone": "Europe/Vienna",
}


class TestCreate:
    def test_creates_rule_series_draft_template_and_the_first_batch(self, now):
        org = make_org()
        series = recurrence_service.create_recurring_event_series(
            org, {"name": "Yoga", "requires_ticket": True}, "Monday yoga", RULE
        )
        series = EventSeries.objects.get(pk=series.pk)
        template = template_of(series)
        assert (template.is_template, template.status, template.start) == (
            True,
            Event.Status.DRAFT,
            MONDAY_10_VIENNA,
        )
        assert (template.event_series_id, template.timezone) == (series.pk, "Europe/Vienna")
        assert series.slug == "monday-yoga"
        assert rule_of(series).rrule_string.startswith("DTSTART;TZID=Europe/Vienna:")
        assert len(occurrences(series)) == 8
        assert series.last_generated_until == NEW_YEAR + timedelta(weeks=8)
        assert TicketTier.objects.filter(event__in=occurrences(series)).count() == 8

    def test_an_invalid_rule_writes_nothing(self, now):
        org = make_org()
        with pytest.raises(ValidationError):
            recurrence_service.create_recurring_event_series(
                org, {"name": "Yoga"}, "Monday yoga", {**RULE, "weekdays": [9]}
            )
        assert not EventSeries.objects.filter(organization=org).exists()
        assert not Event.objects.filter(organization=org).exists()
        assert not RecurrenceRule.objects.exists()

    def test_an_invalid_template_writes_nothing(self, now):
        org = make_org()
        with pytest.raises(ValidationError):
            recurrence_service.create_recurring_event_series(
                org, {"name": "Yoga", "end": MONDAY_10_VIENNA - timedelta(hours=1)}, "S", RULE
            )
        assert not RecurrenceRule.objects.exists()
        assert not EventSeries.objects.filter(organization=org).exists()

    @pytest.mark.parametrize(
        "event_data",
        [
            {"name": "Yoga", "status": "open"},
            {"name": "Yoga", "start": MONDAY_10_VIENNA + timedelta(days=1)},
            {"name": "Yoga", "is_template": False},
        ],
    )
    def test_a_template_is_a_draft_starting_at_dtstart(self, now, event_data):
        with pytest.raises(InvalidInput):
            recurrence_service.create_recurring_event_series(make_org(), event_data, "S", RULE)

    def test_a_taken_series_slug_gets_a_suffix(self, now):
        org = make_org()
        first = recurrence_service.create_recurring_event_series(org, {"name": "A"}, "Yoga", RULE)
        second = recurrence_service.create_recurring_event_series(org, {"name": "B"}, "Yoga", RULE)
        assert first.slug == "yoga"
        assert second.slug.startswith("yoga-") and len(second.slug) == len("yoga-") + 6

    def test_a_blank_series_name_is_refused(self, now):
        with pytest.raises(ValidationError):
            recurrence_service.create_recurring_event_series(make_org(), {"name": "A"}, "  ", RULE)
