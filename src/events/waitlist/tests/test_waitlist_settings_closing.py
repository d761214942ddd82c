"""Closing the waitlist, by /event-admin/{event_id}/waitlist-settings and by the event PATCH
alike (docs/spec/seed-tables.md "Closing by any path").
"""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.tests.factories import make_user
from events.models import Event, EventWaitList, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_settings_support import Status, _active_event, _offer, _patch

Reason = WaitlistOffer.RevokedReason


# -- closing ----------------------------------------------------------------------------------
def _close_by_settings(api: Any, event: Event) -> Any:
    return _patch(api, event, {"waitlist_open": False})


def _close_by_event_patch(api: Any, event: Event) -> Any:
    return api(event.organization.owner).patch(f"/event-admin/{event.pk}", {"waitlist_open": False})


CLOSERS = [
    pytest.param(_close_by_settings, id="settings-patch"),
    pytest.param(_close_by_event_patch, id="event-patch"),
]


@pytest.mark.django_db
class TestClosing:
    @pytest.mark.parametrize("close", CLOSERS)
    def test_closing_revokes_pending_offers_with_waitlist_closed(self, api, close) -> None:
        event = _active_event()
        live, lapsed = (
            _offer(event),
            _offer(event, expires_at=timezone.now() - timedelta(minutes=1)),
        )
        claimed = _offer(event, status=Status.CLAIMED)
        expired = _offer(event, status=Status.EXPIRED)
        other_event_offer = _offer(_active_event())
        assert close(api, event).status_code == 200
        for offer in (live, lapsed):
            offer.refresh_from_db()
            assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.WAITLIST_CLOSED)
        for offer, status in (
            (claimed, Status.CLAIMED),
            (expired, Status.EXPIRED),
            (other_event_offer, Status.PENDING),
        ):
            offer.refresh_from_db()
            assert offer.status == status and offer.revoked_reason == ""
        # The queue itself stays: closing stops new joins and offers, it evicts nobody.
        assert EventWaitList.objects.filter(event=event).count() == 4

    @pytest.mark.parametrize("close", CLOSERS)
    def test_an_already_closed_waitlist_revokes_nothing(self, api, close) -> None:
        event = _active_event(waitlist_open=False)
        offer = _offer(event)  # e.g. left over from before a data fix: not ours to touch
        assert close(api, event).status_code == 200
        offer.refresh_from_db()
        assert offer.status == Status.PENDING

    @pytest.mark.parametrize("close", CLOSERS)
    def test_closed_out_users_stay_eligible_once_the_queue_reopens(
        self, api, close, django_capture_on_commit_callbacks
    ) -> None:
        event = _active_event(max_attendees=1)
        member = make_user()
        EventWaitList.objects.create(event=event, user=member)
        assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 1
        first = WaitlistOffer.objects.get(event=event, user=member)
        assert close(api, event).status_code == 200
        first.refresh_from_db()
        assert first.revoked_reason == Reason.WAITLIST_CLOSED
        assert waitlist_service.process_waitlist_for_event(event.pk).status == "disabled"
        with django_capture_on_commit_callbacks(execute=True):  # the pass runs (eager Celery)
            assert _patch(api, event, {"waitlist_open": True}).status_code == 200
        again = WaitlistOffer.objects.get(event=event, user=member, status=Status.PENDING)
        assert again.pk != first.pk
