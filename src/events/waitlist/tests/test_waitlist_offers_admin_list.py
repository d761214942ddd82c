"""GET /event-admin/{event_id}/waitlist-offers (docs/spec/waitlist-design.md): the offers of an event, as staff
see them.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from events.models import WaitlistOffer
from events.waitlist.tests.waitlist_builders import OFFER_FIELDS
from events.waitlist.tests.waitlist_offers_admin_support import (
    Reason,
    Status,
    _event,
    _offer,
    _owner,
    _url,
)


# -- list -------------------------------------------------------------------------------------
@pytest.mark.django_db
class TestList:
    def test_offers_come_newest_first_with_the_offer_schema(self, api) -> None:
        event = _event()
        old, new = _offer(event, status=Status.EXPIRED), _offer(event)
        WaitlistOffer.objects.filter(pk=old.pk).update(
            created_at=timezone.now() - timedelta(hours=3)
        )
        _offer(_event())  # another event's offer is not listed
        response = _owner(api, event).get(_url(event))
        assert response.status_code == 200
        body = response.json()
        assert body["count"] == 2
        assert [row["id"] for row in body["results"]] == [str(new.pk), str(old.pk)]
        row = body["results"][0]
        assert set(row) == OFFER_FIELDS
        assert row["event_id"] == str(event.pk) and row["status"] == "pending"
        assert row["user"] == {
            "id": str(new.user.pk),
            "email": new.user.email,
            "display_name": new.user.display_name,
        }
        assert row["batch_id"] == str(new.batch_id) and row["is_cutoff_batch"] is False
        assert row["claimed_at"] is None and row["notified_at"] is None
        assert row["revoked_reason"] == ""

    def test_the_status_filter_narrows_the_list(self, api) -> None:
        event = _event()
        _offer(event)
        revoked = _offer(event, status=Status.REVOKED, revoked_reason=Reason.ORGANIZER)
        _offer(event, status=Status.CLAIMED)
        response = _owner(api, event).get(_url(event), status="revoked")
        assert [row["id"] for row in response.json()["results"]] == [str(revoked.pk)]
        assert response.json()["results"][0]["revoked_reason"] == "organizer"

    def test_an_unknown_status_is_a_422(self, api) -> None:
        event = _event()
        response = _owner(api, event).get(_url(event), status="lost")
        assert response.status_code == 422

    def test_the_list_is_paginated(self, api) -> None:
        event = _event(max_attendees=50)
        for _ in range(3):
            _offer(event)
        page = _owner(api, event).get(_url(event), page_size=2).json()
        assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]
        last = _owner(api, event).get(_url(event), page_size=2, page=2).json()
        assert len(last["results"]) == 1 and last["next"] is None
