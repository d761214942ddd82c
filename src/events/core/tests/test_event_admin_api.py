"""PATCH and DELETE /event-admin/{event_id}: edits, their side effects, deletion rules."""

from datetime import timedelta
from typing import Any

import pytest

from events.core.services import event_service
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import fill_with_rsvps, make_event, make_org, make_tier
from events.models import Event, EventRSVP, EventSeries, Ticket, TicketTier, Venue


def _url(event: Event) -> str:
    return f"/event-admin/{event.pk}"


@pytest.fixture
def event(db: None) -> Event:
    return make_event(max_attendees=10)


def _patch(api: Any, event: Event, body: dict[str, Any]) -> Any:
    return api(event.organization.owner).patch(_url(event), body)


@pytest.mark.django_db
class TestPatch:
    def test_only_the_fields_sent_change(self, api, event) -> None:
        before: dict[str, Any] = dict(Event.objects.values().get(pk=event.pk))
        response = _patch(api, event, {"name": "Renamed", "description": "New text"})
        assert response.status_code == 200, response.content
        assert response.json()["name"] == "Renamed"
        after: dict[str, Any] = dict(Event.objects.values().get(pk=event.pk))
        changed = {k for k in after if after[k] != before[k]}
        assert changed == {"name", "description", "updated_at"}

    def test_moving_the_start_keeps_the_length_and_the_default_check_in_window(
        self, api, event
    ) -> None:
        new_start = event.start + timedelta(days=3)
        response = _patch(api, event, {"start": new_start.isoformat()})
        assert response.status_code == 200
        event.refresh_from_db()
        assert event.start == new_start
        assert event.end == new_start + timedelta(days=1)
        assert event.check_in_starts_at == new_start - timedelta(hours=1)
        assert event.check_in_ends_at == event.end

    def test_an_explicit_check_in_window_stays_when_the_start_moves(self, api, event) -> None:
        window_start = event.start - timedelta(hours=3)
        Event.objects.filter(pk=event.pk).update(check_in_starts_at=window_start)
        _patch(api, event, {"start": (event.start + timedelta(hours=1)).isoformat()})
        event.refresh_from_db()
        assert event.check_in_starts_at == window_start

    def test_null_clears_a_nullable_field(self, api, event) -> None:
        Event.objects.filter(pk=event.pk).update(rsvp_before=event.start)
        assert _patch(api, event, {"rsvp_before": None}).status_code == 200
        event.refresh_from_db()
        assert event.rsvp_before is None

    def test_visibility_settings_merge_key_by_key(self, api, event) -> None:
        _patch(api, event, {"visibility_settings": {"show_capacity": False}})
        _patch(api, event, {"visibility_settings": {"show_attendee_count": False}})
        event.refresh_from_db()
        assert event.visibility_settings == {"show_capacity": False, "show_attendee_count": False}

    def test_switching_to_tickets_without_attendees_adds_the_default_tier(self, api, event) -> None:
        assert _patch(api, event, {"requires_ticket": True}).status_code == 200
        assert list(TicketTier.objects.filter(event=event).values_list("name", flat=True)) == [
            "General admission"
        ]

    def test_switching_between_tickets_and_rsvps_with_attendees_is_409(self, api, event) -> None:
        fill_with_rsvps(event, 1)
        before = snapshot()
        response = _patch(api, event, {"requires_ticket": True})
        assert response.status_code == 409
        assert response.json()["code"] == "has_attendees"
        assert snapshot() == before


BAD_PATCHES_400 = [
    pytest.param({"end": "2000-01-01T00:00:00Z"}, "end", id="end-before-start"),
    pytest.param({"waitlist_time_window": "PT30M"}, "waitlist_time_window", id="window-30m"),
    pytest.param({"waitlist_time_window": "P8D"}, "waitlist_time_window", id="window-8d"),
    pytest.param({"name": None}, "name", id="null-name"),
    pytest.param({"start": None}, "start", id="null-start"),
    pytest.param({"max_attendees": None}, "max_attendees", id="null-max-attendees"),
    pytest.param({"timezone": "Nowhere/Land"}, "timezone", id="unknown-timezone"),
    pytest.param(
        {"venue_id": "00000000-0000-0000-0000-000000000001"}, "venue_id", id="unknown-venue"
    ),
]
BAD_PATCHES_422 = [
    pytest.param({"max_attendees": -5}, id="negative-capacity"),
    pytest.param({"waitlist_batch_size": -1}, id="negative-batch"),
    pytest.param({"status": "open"}, id="status-has-its-own-route"),
    pytest.param({"attendee_count": 0}, id="attendee-count"),
    pytest.param({"is_modified": True}, id="series-field"),
    pytest.param({"nmae": "typo"}, id="unknown-field"),
    pytest.param({"waitlist_open": "no"}, id="bool-as-string"),
    pytest.param({"start": "2031-01-01T10:00:00"}, id="naive-datetime"),
]


@pytest.mark.django_db
class TestPatchRefusals:
    @pytest.mark.parametrize(("body", "field"), BAD_PATCHES_400)
    def test_invalid_values_are_400_and_write_nothing(self, api, event, body, field) -> None:
        before = snapshot()
        response = _patch(api, event, body)
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "invalid"
        assert field in response.json()["errors"]
        assert snapshot() == before

    @pytest.mark.parametrize("body", BAD_PATCHES_422)
    def test_wrong_shapes_are_422_and_write_nothing(self, api, event, body) -> None:
        before = snapshot()
        response = _patch(api, event, body)
        assert response.status_code == 422, response.content
        assert snapshot() == before

    def test_cutoff_at_or_after_the_start_is_refused(self, api, event) -> None:
        Event.objects.filter(pk=event.pk).update(waitlist_time_window=timedelta(hours=2))
        before = snapshot()
        for cutoff in (event.start, event.start + timedelta(minutes=1)):
            response = _patch(api, event, {"waitlist_cutoff_date": cutoff.isoformat()})
            assert response.status_code == 400
            assert "waitlist_cutoff_date" in response.json()["errors"]
        assert snapshot() == before

    def test_moving_the_start_past_the_cutoff_is_refused(self, api, event) -> None:
        Event.objects.filter(pk=event.pk).update(
            waitlist_time_window=timedelta(hours=2),
            waitlist_cutoff_date=event.start - timedelta(hours=1),
        )
        response = _patch(api, event, {"start": (event.start - timedelta(hours=2)).isoformat()})
        assert response.status_code == 400
        assert "waitlist_cutoff_date" in response.json()["errors"]

    def test_a_venue_of_another_organisation_is_refused(self, api, event) -> None:
        foreign = Venue.objects.create(organization=make_org(), name="Away", capacity=50)
        before = snapshot()
        response = _patch(api, event, {"venue_id": str(foreign.pk)})
        assert response.status_code == 400
        assert snapshot() == before


@pytest.mark.django_db
class TestCapacityIncrease:
    @pytest.mark.parametrize(
        "case",
        [(10, 12, True), (10, 0, True), (10, 10, False), (10, 8, False), (0, 5, False)],
        ids=["10-to-12", "10-to-unlimited", "unchanged", "10-to-8", "unlimited-to-5"],
    )
    def test_max_attendees_up_enqueues_processing(
        self, api, dispatched, django_capture_on_commit_callbacks, case
    ) -> None:
        old, new, enqueued = case
        event = make_event(max_attendees=old)
        with django_capture_on_commit_callbacks(execute=True):
            assert _patch(api, event, {"max_attendees": new}).status_code == 200
        assert dispatched == ([event.pk] if enqueued else [])

    def test_a_bigger_venue_enqueues_processing(
        self, api, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        org = make_org()
        small = Venue.objects.create(organization=org, name="Small", capacity=5)
        big = Venue.objects.create(organization=org, name="Big", capacity=50)
        event = make_event(org, venue=small, max_attendees=0)
        with django_capture_on_commit_callbacks(execute=True):
            assert _patch(api, event, {"venue_id": str(big.pk)}).status_code == 200
        assert dispatched == [event.pk]

    def test_a_bigger_venue_behind_a_smaller_max_attendees_enqueues_nothing(
        self, api, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        org = make_org()
        small = Venue.objects.create(organization=org, name="Small", capacity=5)
        big = Venue.objects.create(organization=org, name="Big", capacity=50)
        event = make_event(org, venue=small, max_attendees=3)
        with django_capture_on_commit_callbacks(execute=True):
            _patch(api, event, {"venue_id": str(big.pk)})
        assert dispatched == []

    @pytest.mark.parametrize(
        "body",
        [
            {"waitlist_open": True},
            {"waitlist_time_window": "PT3H"},
            {"waitlist_batch_size": 4},
            {"waitlist_time_window": "PT2H", "waitlist_cutoff_date": "2000-01-01T00:00:00Z"},
        ],
        ids=["reopened", "window", "batch-size", "cutoff"],
    )
    def test_waitlist_settings_that_may_allow_a_batch_enqueue_processing(
        self, api, dispatched, django_capture_on_commit_callbacks, body
    ) -> None:
        event = make_event(max_attendees=10, waitlist_open=False)
        with django_capture_on_commit_callbacks(execute=True):
            assert _patch(api, event, body).status_code == 200
        assert dispatched == [event.pk]

    @pytest.mark.parametrize(
        "body",
        [{"waitlist_open": False}, {"waitlist_lottery_mode": True}, {"name": "Other"}],
        ids=["closed", "lottery", "name"],
    )
    def test_other_edits_enqueue_nothing(
        self, api, dispatched, django_capture_on_commit_callbacks, body
    ) -> None:
        event = make_event(max_attendees=10, waitlist_open=True)
        with django_capture_on_commit_callbacks(execute=True):
            assert _patch(api, event, body).status_code == 200
        assert dispatched == []

    def test_a_refused_edit_enqueues_nothing(
        self, api, event, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            response = _patch(api, event, {"max_attendees": 50, "end": "2000-01-01T00:00:00Z"})
        assert response.status_code == 400
        assert dispatched == []


@pytest.mark.django_db
class TestSeriesOccurrence:
    def _occurrence(self, **fields: Any) -> Event:
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Weekly", slug="weekly")
        return make_event(org, event_series=series, occurrence_index=1, **fields)

    def test_a_changed_field_marks_the_occurrence_modified(self, api) -> None:
        occurrence = self._occurrence(max_attendees=10)
        response = _patch(api, occurrence, {"max_attendees": 12})
        assert response.status_code == 200 and response.json()["is_modified"] is True
        occurrence.refresh_from_db()
        assert occurrence.is_modified is True

    def test_sending_the_same_values_leaves_it_unmodified(self, api) -> None:
        occurrence = self._occurrence(max_attendees=10)
        body = {"max_attendees": 10, "name": occurrence.name, "start": occurrence.start.isoformat()}
        assert _patch(api, occurrence, body).status_code == 200
        occurrence.refresh_from_db()
        assert occurrence.is_modified is False

    def test_an_event_outside_a_series_is_never_marked(self, api, event) -> None:
        _patch(api, event, {"name": "Other"})
        event.refresh_from_db()
        assert event.is_modified is False

    def test_a_template_is_never_marked(self, api) -> None:
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Weekly", slug="weekly")
        template = make_event(org, event_series=series, is_template=True, status="draft")
        assert _patch(api, template, {"name": "Template v2"}).status_code == 200
        template.refresh_from_db()
        assert template.is_modified is False and template.name == "Template v2"


@pytest.mark.django_db
class TestSeams:
    def test_start_end_venue_changes_reach_the_event_updated_seam_on_commit(
        self, api, event, sent_tasks, django_capture_on_commit_callbacks
    ) -> None:
        new_start = event.start + timedelta(hours=2)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            _patch(api, event, {"start": new_start.isoformat(), "name": "Moved"})
        assert sent_tasks.calls == []  # nothing before the commit
        for callback in callbacks:
            callback()
        assert sent_tasks.named("events.send_event_notification") == [
            ["event_updated", str(event.pk), ["start", "end"]]
        ]

    def test_other_changes_notify_nobody(
        self, api, event, sent_tasks, django_capture_on_commit_callbacks
    ) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            _patch(api, event, {"name": "Renamed", "max_attendees": 20})
        assert sent_tasks.named("events.send_event_notification") == []

    def test_closing_the_waitlist_reaches_the_revocation_seam(self, api, monkeypatch) -> None:
        event = make_event(waitlist_open=True)
        closed: list[Any] = []
        monkeypatch.setattr(
            event_service, "_revoke_pending_offers_on_waitlist_close", closed.append
        )
        _patch(api, event, {"waitlist_open": True})
        assert closed == []
        _patch(api, event, {"waitlist_open": False})
        assert [e.pk for e in closed] == [event.pk]


@pytest.mark.django_db
class TestDelete:
    def test_an_event_without_attendees_is_deleted(self, api, event) -> None:
        response = api(event.organization.owner).delete(_url(event))
        assert response.status_code == 204
        assert not Event.objects.filter(pk=event.pk).exists()

    def test_a_ticketed_event_without_tickets_goes_with_its_tiers(self, api) -> None:
        event = make_event(requires_ticket=True)
        make_tier(event)
        assert api(event.organization.owner).delete(_url(event)).status_code == 204
        assert not TicketTier.objects.filter(event_id=event.pk).exists()

    @pytest.mark.parametrize("kind", ["yes_rsvp", "no_rsvp", "active_ticket", "cancelled_ticket"])
    def test_any_ticket_or_rsvp_makes_it_409(self, api, event, kind) -> None:
        if kind.endswith("rsvp"):
            answer = EventRSVP.Status.YES if kind == "yes_rsvp" else EventRSVP.Status.NO
            EventRSVP.objects.create(event=event, user=event.organization.owner, status=answer)
        else:
            tier = make_tier(event)
            status = Ticket.Status.ACTIVE if kind == "active_ticket" else Ticket.Status.CANCELLED
            Ticket.objects.create(
                event=event, tier=tier, user=event.organization.owner, status=status
            )
        before = snapshot()
        response = api(event.organization.owner).delete(_url(event))
        assert response.status_code == 409
        assert response.json()["code"] == "has_attendees"
        assert snapshot() == before

    def test_a_series_template_is_not_deleted_here(self, api) -> None:
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Weekly", slug="weekly")
        template = make_event(org, event_series=series, is_template=True, status="draft")
        response = api(org.owner).delete(_url(template))
        assert response.status_code == 409
        assert Event.objects.filter(pk=template.pk).exists()
