"""The waitlist settings PATCH rows of docs/spec/seed-tables.md "Trigger sites": which settings changes
send a processing pass for the event after the commit.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.event_admin_support import dispatched
from events.core.tests.factories import make_event, make_org
from events.models import EventWaitList, WaitlistOffer
from events.waitlist.tests.waitlist_settings_support import Status, _active_event, _patch

__all__ = ["dispatched"]  # fixtures, imported for pytest


# -- triggers ---------------------------------------------------------------------------------
@pytest.mark.django_db
class TestTriggers:
    @pytest.mark.parametrize(
        "change",
        [
            pytest.param(
                ({"waitlist_open": True}, {"waitlist_time_window": "PT2H"}), id="active-mode-on"
            ),
            pytest.param(({"waitlist_open": False}, {"waitlist_open": True}), id="reopened"),
            pytest.param(
                ({"waitlist_time_window": timedelta(hours=2)}, {"waitlist_time_window": "PT5H"}),
                id="window",
            ),
            pytest.param(({}, {"waitlist_batch_size": 4}), id="batch-size"),
            pytest.param(
                (
                    {"waitlist_time_window": timedelta(hours=2)},
                    {"waitlist_cutoff_date": "2000-01-01T00:00:00Z"},
                ),
                id="cutoff",
            ),
        ],
    )
    @pytest.mark.parametrize(
        "path", ["/waitlist-settings", ""], ids=["settings-patch", "event-patch"]
    )
    def test_a_change_that_may_allow_a_batch_enqueues_one_pass(
        self, api, dispatched, django_capture_on_commit_callbacks, change, path
    ) -> None:
        """`initial` is the event before; `body` the PATCH that changes it."""
        initial, body = change
        event = make_event(make_org(), max_attendees=5, **initial)
        with django_capture_on_commit_callbacks(execute=True):
            response = api(event.organization.owner).patch(f"/event-admin/{event.pk}{path}", body)
        assert response.status_code == 200, response.content
        assert dispatched.event_ids == [event.pk]

    @pytest.mark.parametrize(
        "body",
        [
            pytest.param({"waitlist_open": False}, id="closed"),
            pytest.param({"waitlist_lottery_mode": True}, id="lottery"),
            pytest.param(
                {"waitlist_batch_size": 0, "waitlist_time_window": "PT2H"}, id="same-values"
            ),
        ],
    )
    @pytest.mark.parametrize(
        "path", ["/waitlist-settings", ""], ids=["settings-patch", "event-patch"]
    )
    def test_other_changes_enqueue_nothing(
        self, api, dispatched, django_capture_on_commit_callbacks, body, path
    ) -> None:
        event = _active_event()
        with django_capture_on_commit_callbacks(execute=True):
            response = api(event.organization.owner).patch(f"/event-admin/{event.pk}{path}", body)
        assert response.status_code == 200, response.content
        assert dispatched.event_ids == []

    def test_nothing_is_enqueued_before_the_commit(
        self, api, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        event = make_event(make_org(), max_attendees=5)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            assert _patch(api, event, {"waitlist_batch_size": 2}).status_code == 200
        assert dispatched.event_ids == []
        for callback in callbacks:
            callback()
        assert dispatched.event_ids == [event.pk]

    def test_turning_the_active_mode_on_offers_free_seats_at_once(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = make_event(make_org(), max_attendees=2, waitlist_open=True)
        members = [make_user() for _ in range(3)]
        joined = timezone.now() - timedelta(hours=1)
        for minute, member in enumerate(members):
            entry = EventWaitList.objects.create(event=event, user=member)
            EventWaitList.objects.filter(pk=entry.pk).update(
                created_at=joined + timedelta(minutes=minute)
            )
        with django_capture_on_commit_callbacks(execute=True):
            assert _patch(api, event, {"waitlist_time_window": "PT2H"}).status_code == 200
        offered = set(
            WaitlistOffer.objects.filter(event=event, status=Status.PENDING).values_list(
                "user_id", flat=True
            )
        )
        assert offered == {members[0].pk, members[1].pk}
