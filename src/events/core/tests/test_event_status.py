"""POST /event-admin/{event_id}/status/{status}: docs/spec/domain.md's transitions and their effects."""

from itertools import product
from typing import Any

import pytest

from events.core.services import event_service
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import fill_with_rsvps, make_event, make_org, make_staff
from events.models import Event, EventRSVP, EventSeries

STATUSES = ["draft", "open", "closed", "cancelled"]
ALLOWED = {
    ("draft", "open"),
    ("draft", "cancelled"),
    ("open", "closed"),
    ("open", "cancelled"),
    ("open", "draft"),
    ("closed", "open"),
    ("closed", "cancelled"),
    ("cancelled", "draft"),
    ("cancelled", "open"),
}
REFUSED = sorted(set(product(STATUSES, STATUSES)) - ALLOWED)


def _post(api: Any, event: Event, status: str, caller: Any = None) -> Any:
    return api(caller or event.organization.owner).post(f"/event-admin/{event.pk}/status/{status}")


@pytest.mark.django_db
class TestTransitions:
    @pytest.mark.parametrize(("old", "new"), sorted(ALLOWED))
    def test_every_allowed_transition_moves_the_event(self, api, old, new) -> None:
        event = make_event(status=old)
        response = _post(api, event, new)
        assert response.status_code == 200, response.content
        assert response.json()["status"] == new
        event.refresh_from_db()
        assert event.status == new

    @pytest.mark.parametrize(("old", "new"), REFUSED)
    def test_every_other_transition_is_409_and_changes_nothing(self, api, old, new) -> None:
        event = make_event(status=old)
        before = snapshot()
        response = _post(api, event, new)
        assert response.status_code == 409
        assert response.json()["code"] == "invalid_status_transition"
        assert snapshot() == before

    def test_the_refused_pairs_are_exactly_the_rest(self) -> None:
        assert len(ALLOWED) + len(REFUSED) == 16
        assert {(s, s) for s in STATUSES} <= set(REFUSED)

    @pytest.mark.parametrize("new", STATUSES)
    def test_a_series_template_refuses_every_change(self, api, new) -> None:
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Weekly", slug="weekly")
        template = make_event(org, event_series=series, is_template=True, status="draft")
        before = snapshot()
        response = _post(api, template, new)
        assert response.status_code == 409
        assert response.json()["code"] == "invalid_status_transition"
        assert snapshot() == before

    @pytest.mark.parametrize("bad", ["published", "OPEN", "deleted"])
    def test_an_unknown_status_is_422(self, api, bad) -> None:
        event = make_event(status="draft")
        before = snapshot()
        response = _post(api, event, bad)
        assert response.status_code == 422
        assert response.json()["code"] == "invalid"
        assert snapshot() == before

    def test_the_service_refuses_an_unknown_status_with_400(self) -> None:
        from common.errors import InvalidInput

        with pytest.raises(InvalidInput):
            event_service.change_status(Event(), "published")


@pytest.mark.django_db
class TestEffects:
    @pytest.mark.parametrize(("old", "new"), sorted(ALLOWED))
    def test_only_un_cancelling_or_opening_enqueues_waitlist_processing(
        self, api, dispatched, django_capture_on_commit_callbacks, old, new
    ) -> None:
        event = make_event(status=old, max_attendees=5)
        with django_capture_on_commit_callbacks(execute=True):
            assert _post(api, event, new).status_code == 200
        assert dispatched == ([event.pk] if old == "cancelled" or new == "open" else [])

    def test_cancelling_leaves_rsvps_and_the_count_as_they_are(self, api) -> None:
        event = make_event(status="open", max_attendees=5)
        fill_with_rsvps(event, 3)
        assert _post(api, event, "cancelled").status_code == 200
        event.refresh_from_db()
        assert event.attendee_count == 3
        assert EventRSVP.objects.filter(event=event, status="yes").count() == 3
        assert _post(api, event, "open").status_code == 200
        event.refresh_from_db()
        assert event.attendee_count == 3

    def test_cancelling_reaches_the_offer_and_notification_seams(
        self, api, monkeypatch, django_capture_on_commit_callbacks
    ) -> None:
        revoked: list[Any] = []
        notified: list[Any] = []
        monkeypatch.setattr(event_service, "_revoke_pending_offers_on_cancel", revoked.append)
        monkeypatch.setattr(
            event_service,
            "_notify_event_cancelled",
            lambda event_id, message="": notified.append(event_id),
        )
        event = make_event(status="open")
        with django_capture_on_commit_callbacks(execute=True):
            _post(api, event, "cancelled")
        assert [e.pk for e in revoked] == [event.pk]
        assert notified == [event.pk]

    def test_a_refused_transition_enqueues_nothing(
        self, api, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        event = make_event(status="cancelled")
        with django_capture_on_commit_callbacks(execute=True):
            assert _post(api, event, "closed").status_code == 409
        assert dispatched == []


@pytest.mark.django_db
class TestPermissions:
    def test_opening_needs_open_event_not_close_event(self, api) -> None:
        event = make_event(status="draft")
        staff = make_staff(event.organization, open_event=True, close_event=False)
        assert _post(api, event, "open", staff).status_code == 200

    @pytest.mark.parametrize("new", ["closed", "cancelled", "draft"])
    def test_closing_cancelling_and_unpublishing_need_close_event(self, api, new) -> None:
        event = make_event(status="open")
        without = make_staff(event.organization, close_event=False, open_event=True)
        assert _post(api, event, new, without).status_code == 403
        event.refresh_from_db()
        assert event.status == "open"
        allowed = make_staff(event.organization, close_event=True, open_event=False)
        assert _post(api, event, new, allowed).status_code == 200

    def test_opening_without_open_event_is_403(self, api) -> None:
        event = make_event(status="draft")
        staff = make_staff(event.organization, open_event=False)
        assert _post(api, event, "open", staff).status_code == 403
        event.refresh_from_db()
        assert event.status == "draft"
