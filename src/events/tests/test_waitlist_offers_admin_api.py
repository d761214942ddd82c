"""/event-admin/{event_id}/waitlist-offers: list, create, revoke, reactivate (seed 000),
cancelling an event with offers, and the permission matrix of every waitlist admin route.
"""

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.service.tokens import issue_token_pair
from accounts.tests.factories import make_user
from events.models import Event, EventWaitList, Organization, OrganizationStaff, WaitlistOffer
from events.models.organization import default_staff_permissions
from events.service import waitlist_service
from events.tests.event_admin_support import dispatched, snapshot
from events.tests.factories import fill_with_rsvps, make_event, make_org
from events.tests.threaded_eager import eager_join_flag_cleared_after_race
from events.tests.waitlist_builders import OFFER_FIELDS
from notifications.models import Notification, NotificationType

__all__ = ["dispatched", "eager_join_flag_cleared_after_race"]

Status = WaitlistOffer.WaitlistOfferStatus
Reason = WaitlistOffer.RevokedReason
WINDOW = timedelta(hours=2)
SPOT = NotificationType.WAITLIST_SPOT_AVAILABLE


def _url(event: Event, suffix: str = "") -> str:
    return f"/event-admin/{event.pk}/waitlist-offers{suffix}"


def _owner(api: Any, event: Event) -> Any:
    return api(event.organization.owner)


def _event(organization: Organization | None = None, **fields: Any) -> Event:
    """An open event with the active waitlist on and room for 5."""
    fields = {"max_attendees": 5, "waitlist_open": True, "waitlist_time_window": WINDOW, **fields}
    return make_event(organization or make_org(), **fields)


def _entry(event: Event, user: User | None = None) -> EventWaitList:
    return EventWaitList.objects.create(event=event, user=user or make_user())


def _offer(event: Event, user: User | None = None, **fields: Any) -> WaitlistOffer:
    """A queue member holding an offer in the given state (test setup, no checks)."""
    user = user or make_user()
    EventWaitList.objects.get_or_create(event=event, user=user)
    fields.setdefault("expires_at", timezone.now() + timedelta(hours=1))
    return WaitlistOffer.objects.create(event=event, user=user, batch_id=uuid.uuid4(), **fields)


def _everything() -> list[Any]:
    """Every row an offers route may write, notifications included."""
    return [
        *snapshot(),
        list(WaitlistOffer.objects.order_by("pk").values()),
        list(Notification.objects.order_by("pk").values()),
    ]


def _spot_notices(user: User) -> int:
    return Notification.objects.filter(user=user, notification_type=SPOT).count()


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value)


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


# -- create -----------------------------------------------------------------------------------
@pytest.mark.django_db
class TestCreate:
    def test_an_offer_for_a_queue_entry_defaults_to_now_plus_the_window(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = _event()
        entry = _entry(event)
        before = timezone.now()
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201, response.content
        body = response.json()
        assert set(body) == OFFER_FIELDS
        assert body["status"] == "pending" and body["is_cutoff_batch"] is False
        assert body["user"]["id"] == str(entry.user_id)
        assert before + WINDOW <= _at(body["expires_at"]) <= timezone.now() + WINDOW
        offer = WaitlistOffer.objects.get(pk=body["id"])
        assert offer.status == Status.PENDING and offer.notified_at is not None

    def test_the_user_hears_of_the_offer_only_after_the_commit(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = _event()
        entry = _entry(event)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201
        assert _spot_notices(entry.user) == 0
        for callback in callbacks:
            callback()
        assert _spot_notices(entry.user) == 1
        notice = Notification.objects.get(user=entry.user, notification_type=SPOT)
        assert notice.context["offer_id"] == response.json()["id"]
        assert notice.context["is_cutoff_batch"] is False

    def test_an_explicit_expiry_is_kept(self, api) -> None:
        event = _event()
        entry = _entry(event)
        deadline = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
        body = {"waitlist_entry_id": str(entry.pk), "expires_at": deadline.isoformat()}
        response = _owner(api, event).post(_url(event), body)
        assert response.status_code == 201
        assert WaitlistOffer.objects.get(pk=response.json()["id"]).expires_at == deadline

    def test_the_default_deadline_never_passes_the_start(self, api) -> None:
        event = _event(start=timezone.now() + timedelta(minutes=30))
        response = _owner(api, event).post(
            _url(event), {"waitlist_entry_id": str(_entry(event).pk)}
        )
        assert response.status_code == 201
        assert WaitlistOffer.objects.get(pk=response.json()["id"]).expires_at == event.start

    def test_without_a_window_the_expiry_is_required(self, api) -> None:
        event = _event(waitlist_time_window=None)
        entry = _entry(event)
        before = _everything()
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 400
        assert "expires_at" in response.json()["errors"]
        assert _everything() == before
        deadline = timezone.now() + timedelta(hours=5)
        body = {"waitlist_entry_id": str(entry.pk), "expires_at": deadline.isoformat()}
        assert _owner(api, event).post(_url(event), body).status_code == 201

    @pytest.mark.parametrize(
        "deadline",
        [
            pytest.param(lambda e: timezone.now() - timedelta(minutes=1), id="past"),
            pytest.param(lambda e: e.start + timedelta(seconds=1), id="after-start"),
            pytest.param(lambda e: e.rsvp_before + timedelta(minutes=1), id="after-rsvp-deadline"),
        ],
    )
    def test_an_expiry_outside_the_useful_span_is_a_400(self, api, deadline) -> None:
        start = timezone.now() + timedelta(days=3)
        event = _event(start=start, rsvp_before=start - timedelta(days=1))
        entry = _entry(event)
        before = _everything()
        body = {"waitlist_entry_id": str(entry.pk), "expires_at": deadline(event).isoformat()}
        response = _owner(api, event).post(_url(event), body)
        assert response.status_code == 400, response.content
        assert "expires_at" in response.json()["errors"]
        assert _everything() == before

    def test_a_naive_expiry_is_a_422(self, api) -> None:
        event = _event()
        body = {"waitlist_entry_id": str(_entry(event).pk), "expires_at": "2030-01-01T10:00:00"}
        assert _owner(api, event).post(_url(event), body).status_code == 422

    def test_a_user_with_a_pending_offer_gets_no_second_one(self, api) -> None:
        event = _event()
        held = _offer(event)
        entry = EventWaitList.objects.get(event=event, user=held.user)
        before = _everything()
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 409
        assert response.json()["code"] == "pending_offer_exists"
        assert _everything() == before

    def test_a_lapsed_pending_offer_does_not_block_a_new_one(self, api) -> None:
        event = _event()
        lapsed = _offer(event, expires_at=timezone.now() - timedelta(minutes=5))
        entry = EventWaitList.objects.get(event=event, user=lapsed.user)
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201, response.content
        lapsed.refresh_from_db()
        assert lapsed.status == Status.EXPIRED

    def test_an_offer_that_would_overcommit_is_a_409_with_a_hint(self, api) -> None:
        event = _event(max_attendees=3)
        fill_with_rsvps(event, 2)
        _offer(event)  # the third seat is held
        entry = _entry(event)
        before = _everything()
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 409
        assert response.json()["code"] == "capacity"
        assert "revoke a pending offer" in response.json()["detail"]
        assert _everything() == before

    def test_cutoff_and_lapsed_offers_hold_no_seat(self, api) -> None:
        event = _event(max_attendees=3)
        fill_with_rsvps(event, 2)
        _offer(event, is_cutoff_batch=True, expires_at=event.start)
        _offer(event, expires_at=timezone.now() - timedelta(minutes=1))
        entry = _entry(event)
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201, response.content

    def test_admin_offers_are_never_cutoff_offers(self, api) -> None:
        event = _event()
        Event.objects.filter(pk=event.pk).update(
            waitlist_cutoff_date=timezone.now() - timedelta(hours=1)
        )
        response = _owner(api, event).post(
            _url(event), {"waitlist_entry_id": str(_entry(event).pk)}
        )
        assert response.status_code == 201
        assert response.json()["is_cutoff_batch"] is False

    @pytest.mark.parametrize(
        "state",
        [
            pytest.param({"status": Event.Status.CLOSED}, id="event-closed"),
            pytest.param({"status": Event.Status.CANCELLED}, id="event-cancelled"),
            pytest.param({"waitlist_open": False}, id="waitlist-closed"),
            pytest.param({"max_attendees": 0}, id="unlimited-capacity"),
            pytest.param({"rsvp_before": timezone.now() - timedelta(hours=1)}, id="rsvps-closed"),
        ],
    )
    def test_an_offer_of_no_use_is_refused(self, api, state) -> None:
        event = _event()
        entry = _entry(event)
        Event.objects.filter(pk=event.pk).update(**state)
        before = _everything()
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 409, response.content
        assert response.json()["code"] == "offers_not_applicable"
        assert _everything() == before

    def test_an_entry_of_another_event_is_a_404(self, api) -> None:
        event = _event()
        sibling = _event(event.organization)
        foreign_entry = _entry(sibling)
        before = _everything()
        response = _owner(api, event).post(
            _url(event), {"waitlist_entry_id": str(foreign_entry.pk)}
        )
        assert response.status_code == 404
        unknown = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(uuid.uuid4())})
        assert unknown.status_code == 404
        assert _everything() == before

    def test_an_offer_ends_an_organisers_soft_skip(self, api) -> None:
        """Re-offered: once that new offer lapses the user is back in the normal rotation."""
        event = _event(max_attendees=1)
        entry = _entry(event)
        revoked = _offer(event, entry.user, status=Status.REVOKED, revoked_reason=Reason.ORGANIZER)
        WaitlistOffer.objects.filter(pk=revoked.pk).update(
            created_at=timezone.now() - timedelta(hours=1)
        )
        assert waitlist_service.process_waitlist_for_event(event.pk).status == "no_eligible_users"
        response = _owner(api, event).post(_url(event), {"waitlist_entry_id": str(entry.pk)})
        assert response.status_code == 201
        WaitlistOffer.objects.filter(pk=response.json()["id"]).update(status=Status.EXPIRED)
        result = waitlist_service.process_waitlist_for_event(event.pk)
        assert result.offers_created == 1
        assert WaitlistOffer.objects.filter(
            event=event, user=entry.user, status=Status.PENDING
        ).exists()


# -- revoke -----------------------------------------------------------------------------------
@pytest.mark.django_db
class TestRevoke:
    def test_a_pending_offer_is_revoked_and_the_next_batch_enqueued(
        self, api, dispatched, django_capture_on_commit_callbacks
    ) -> None:
        event = _event()
        offer = _offer(event)
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).post(_url(event, f"/{offer.pk}/revoke"))
        assert response.status_code == 200, response.content
        assert response.json()["status"] == "revoked"
        assert response.json()["revoked_reason"] == "organizer"
        offer.refresh_from_db()
        assert (offer.status, offer.revoked_reason) == (Status.REVOKED, Reason.ORGANIZER)
        assert dispatched.event_ids == [event.pk]

    @pytest.mark.parametrize("status", [Status.CLAIMED, Status.EXPIRED, Status.REVOKED], ids=str)
    def test_only_pending_offers_can_be_revoked(self, api, dispatched, status) -> None:
        event = _event()
        offer = _offer(event, status=status)
        before = _everything()
        response = _owner(api, event).post(_url(event, f"/{offer.pk}/revoke"))
        assert response.status_code == 404
        assert _everything() == before

    def test_an_offer_of_another_event_is_a_404(self, api, dispatched) -> None:
        event = _event()
        foreign = _offer(_event(event.organization))
        response = _owner(api, event).post(_url(event, f"/{foreign.pk}/revoke"))
        assert response.status_code == 404
        foreign.refresh_from_db()
        assert foreign.status == Status.PENDING

    def test_a_revoked_user_is_skipped_by_processing_until_reactivated(
        self, api, dispatched
    ) -> None:
        event = _event(max_attendees=1)
        first, second = _entry(event), _entry(event)
        EventWaitList.objects.filter(pk=first.pk).update(
            created_at=timezone.now() - timedelta(hours=1)
        )
        assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 1
        offer = WaitlistOffer.objects.get(event=event, status=Status.PENDING)
        assert offer.user_id == first.user_id
        assert _owner(api, event).post(_url(event, f"/{offer.pk}/revoke")).status_code == 200
        # The seat goes to the second in line although the first is still at the head.
        waitlist_service.process_waitlist_for_event(event.pk)
        second_offer = WaitlistOffer.objects.get(event=event, status=Status.PENDING)
        assert second_offer.user_id == second.user_id
        EventWaitList.objects.filter(pk=second.pk).delete()  # revokes (entry_deleted)
        assert waitlist_service.process_waitlist_for_event(event.pk).status == "no_eligible_users"
        response = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"))
        assert response.status_code == 200, response.content
        # Reactivated, the user is an ordinary member again: a lapse puts them back in line.
        WaitlistOffer.objects.filter(pk=offer.pk).update(status=Status.EXPIRED)
        assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 1
        assert (
            WaitlistOffer.objects.get(event=event, status=Status.PENDING).user_id == first.user_id
        )


# -- reactivate -------------------------------------------------------------------------------
@pytest.mark.django_db
class TestReactivate:
    @pytest.mark.parametrize(
        "fields",
        [
            pytest.param({"status": Status.EXPIRED}, id="expired"),
            pytest.param(
                {"status": Status.REVOKED, "revoked_reason": Reason.ORGANIZER}, id="revoked"
            ),
        ],
    )
    def test_an_expired_or_revoked_offer_is_pending_again_and_notified(
        self, api, django_capture_on_commit_callbacks, fields
    ) -> None:
        event = _event()
        offer = _offer(
            event,
            expires_at=timezone.now() - timedelta(hours=1),
            notified_at=timezone.now() - timedelta(hours=3),
            **fields,
        )
        before = timezone.now()
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"), {})
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["id"] == str(offer.pk) and body["status"] == "pending"
        assert body["revoked_reason"] == "" and body["is_cutoff_batch"] is False
        assert _at(body["expires_at"]) >= before + WINDOW
        assert _spot_notices(offer.user) == 1
        offer.refresh_from_db()
        assert offer.notified_at is not None and offer.notified_at >= before

    def test_the_body_may_be_left_out_or_carry_an_expiry(self, api) -> None:
        event = _event(waitlist_time_window=None)
        offer = _offer(event, status=Status.EXPIRED)
        missing = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"))
        assert missing.status_code == 400 and "expires_at" in missing.json()["errors"]
        deadline = (timezone.now() + timedelta(hours=6)).replace(microsecond=0)
        response = _owner(api, event).post(
            _url(event, f"/{offer.pk}/reactivate"), {"expires_at": deadline.isoformat()}
        )
        assert response.status_code == 200
        offer.refresh_from_db()
        assert offer.expires_at == deadline and offer.status == Status.PENDING

    @pytest.mark.parametrize(
        "deadline",
        [
            pytest.param(lambda e: timezone.now(), id="now"),
            pytest.param(lambda e: e.start + timedelta(minutes=1), id="after-start"),
        ],
    )
    def test_an_expiry_outside_the_useful_span_is_a_400(self, api, deadline) -> None:
        event = _event()
        offer = _offer(event, status=Status.EXPIRED)
        before = _everything()
        response = _owner(api, event).post(
            _url(event, f"/{offer.pk}/reactivate"), {"expires_at": deadline(event).isoformat()}
        )
        assert response.status_code == 400
        assert _everything() == before

    @pytest.mark.parametrize("status", [Status.PENDING, Status.CLAIMED], ids=str)
    def test_only_expired_or_revoked_offers_come_back(self, api, status) -> None:
        event = _event()
        offer = _offer(event, status=status)
        before = _everything()
        assert _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate")).status_code == 404
        assert _everything() == before

    def test_an_offer_of_another_event_is_a_404(self, api) -> None:
        event = _event()
        foreign = _offer(_event(event.organization), status=Status.EXPIRED)
        assert _owner(api, event).post(_url(event, f"/{foreign.pk}/reactivate")).status_code == 404
        foreign.refresh_from_db()
        assert foreign.status == Status.EXPIRED

    def test_a_user_who_left_the_queue_cannot_be_reactivated(self, api) -> None:
        event = _event()
        offer = _offer(event, status=Status.EXPIRED)
        EventWaitList.objects.filter(event=event, user=offer.user).delete()
        before = _everything()
        response = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"))
        assert response.status_code == 409
        assert response.json()["code"] == "not_on_waitlist"
        assert _everything() == before

    def test_reactivating_that_would_overcommit_is_a_409_with_a_hint(self, api) -> None:
        event = _event(max_attendees=2)
        fill_with_rsvps(event, 1)
        _offer(event)
        offer = _offer(event, status=Status.EXPIRED)
        before = _everything()
        response = _owner(api, event).post(_url(event, f"/{offer.pk}/reactivate"))
        assert response.status_code == 409
        assert response.json()["code"] == "capacity"
        assert "revoke a pending offer" in response.json()["detail"]
        assert _everything() == before

    def test_a_user_with_another_pending_offer_is_a_409(self, api) -> None:
        event = _event()
        old = _offer(event, status=Status.EXPIRED)
        _offer(event, old.user)
        response = _owner(api, event).post(_url(event, f"/{old.pk}/reactivate"))
        assert response.status_code == 409
        assert response.json()["code"] == "pending_offer_exists"


# -- cancelling the event ---------------------------------------------------------------------
@pytest.mark.django_db
class TestEventCancelled:
    def test_cancelling_revokes_pending_offers_with_event_cancelled(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = _event(max_attendees=1)
        pending = _offer(event)
        claimed = _offer(event, status=Status.CLAIMED)
        expired = _offer(event, status=Status.EXPIRED)
        with django_capture_on_commit_callbacks(execute=True):
            response = _owner(api, event).post(f"/event-admin/{event.pk}/status/cancelled")
        assert response.status_code == 200, response.content
        pending.refresh_from_db()
        assert (pending.status, pending.revoked_reason) == (Status.REVOKED, Reason.EVENT_CANCELLED)
        claimed.refresh_from_db()
        expired.refresh_from_db()
        assert (claimed.status, expired.status) == (Status.CLAIMED, Status.EXPIRED)

    def test_the_users_stay_eligible_when_the_event_is_reopened(
        self, api, django_capture_on_commit_callbacks
    ) -> None:
        event = _event(max_attendees=1)
        pending = _offer(event)
        assert (
            _owner(api, event).post(f"/event-admin/{event.pk}/status/cancelled").status_code == 200
        )
        with django_capture_on_commit_callbacks(execute=True):  # un-cancel → a pass (eager)
            response = _owner(api, event).post(f"/event-admin/{event.pk}/status/open")
        assert response.status_code == 200
        assert (
            WaitlistOffer.objects.filter(event=event, user=pending.user, status=Status.PENDING)
            .exclude(pk=pending.pk)
            .exists()
        )


# -- permission matrix ------------------------------------------------------------------------
@dataclass
class Objects:
    """One event with a queue entry without an offer, a pending and an expired offer."""

    event: Event
    entry: EventWaitList
    pending: WaitlistOffer
    expired: WaitlistOffer

    @classmethod
    def build(cls, organization: Organization) -> "Objects":
        event = _event(organization)
        return cls(
            event=event,
            entry=_entry(event),
            pending=_offer(event),
            expired=_offer(event, status=Status.EXPIRED),
        )


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    permission: str
    ok: int
    body: Callable[[Objects], dict[str, Any]] | None = None
    sub_object: str | None = None  # an attribute of Objects, taken from a sibling event

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path}"


BASE = "/event-admin/{event}"
ROUTES = [
    Route("get", BASE + "/waitlist-settings", "manage_event", 200),
    Route(
        "patch",
        BASE + "/waitlist-settings",
        "manage_event",
        200,
        body=lambda o: {"waitlist_batch_size": 2, "waitlist_open": False},
    ),
    Route("get", BASE + "/waitlist-offers", "invite_to_event", 200),
    Route(
        "post",
        BASE + "/waitlist-offers",
        "manage_event",
        201,
        body=lambda o: {"waitlist_entry_id": str(o.entry.pk)},
        sub_object="entry",
    ),
    Route(
        "post",
        BASE + "/waitlist-offers/{pending}/revoke",
        "manage_event",
        200,
        sub_object="pending",
    ),
    Route(
        "post",
        BASE + "/waitlist-offers/{expired}/reactivate",
        "manage_event",
        200,
        body=lambda o: {},
        sub_object="expired",
    ),
]
CASES = [
    "anonymous_401",
    "plain_user_403",
    "staff_without_permission_403",
    "invisible_event_404",
    "other_events_object_404",
    "permitted_staff_succeeds",
]


def _staff(organization: Organization, permissions: dict[str, bool]) -> User:
    """A staff member with the default permissions, overridden by `permissions`."""
    user = make_user()
    OrganizationStaff.objects.create(
        organization=organization, user=user, permissions=default_staff_permissions() | permissions
    )
    return user


def _matrix() -> list[Any]:
    return [
        pytest.param(route, case, id=f"{route}-{case}")
        for route in ROUTES
        for case in CASES
        if case != "other_events_object_404" or route.sub_object is not None
    ]


def _call(api: Any, caller: User | None, route: Route, target: Objects, event: Event) -> Any:
    """`target` supplies the sub-object (path or body); `event` the event in the path."""
    url = route.path.format(event=event.pk, pending=target.pending.pk, expired=target.expired.pk)
    client = api(caller)
    if route.method == "get":
        return client.get(url)
    return getattr(client, route.method)(url, route.body(target) if route.body else None)


@pytest.mark.django_db
@pytest.mark.parametrize(("route", "case"), _matrix())
def test_waitlist_admin_route(api, route: Route, case: str) -> None:
    organization = make_org()
    home, sibling = Objects.build(organization), Objects.build(organization)
    foreign_draft = make_event(make_org(), status="draft")
    if case == "permitted_staff_succeeds":
        only = dict.fromkeys(default_staff_permissions(), False) | {route.permission: True}
        staff = _staff(organization, only)
        response = _call(api, staff, route, home, home.event)
        assert response.status_code == route.ok, response.content
        return
    plain = make_user()
    assert api(plain).get(f"/events/{home.event.pk}").status_code == 200  # visible to them
    callers: dict[str, tuple[User | None, Objects, Event, int]] = {
        "anonymous_401": (None, home, home.event, 401),
        "plain_user_403": (plain, home, home.event, 403),
        "staff_without_permission_403": (
            _staff(organization, {route.permission: False}),
            home,
            home.event,
            403,
        ),
        # The owner holds every permission here, but cannot see the other organisation's draft.
        "invisible_event_404": (organization.owner, home, foreign_draft, 404),
        "other_events_object_404": (organization.owner, sibling, home.event, 404),
    }
    caller, target, event, status = callers[case]
    before = _everything()
    response = _call(api, caller, route, target, event)
    assert response.status_code == status, response.content
    assert response.json()["code"] and response.json()["detail"]
    assert _everything() == before


# -- races (PostgreSQL row locks) -------------------------------------------------------------
def _race_posts(token: str, path: str, bodies: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """POST every body from its own thread and connection, all released at once."""
    barrier = threading.Barrier(len(bodies))
    outcomes: list[tuple[int, str]] = []
    guard = threading.Lock()

    def attempt(body: dict[str, Any]) -> None:
        client = Client(headers={"Authorization": f"Bearer {token}"})
        try:
            barrier.wait()
            for _ in range(10):  # 503 busy is an answer the client is told to retry
                response = client.post(path, body, content_type="application/json")
                if response.status_code != 503:
                    break
                time.sleep(0.05)
            outcome = (response.status_code, response.json().get("code", ""))
        except Exception as exc:  # recorded, so a crash fails the assertions
            outcome = (0, repr(exc))
        finally:
            connection.close()
        with guard:
            outcomes.append(outcome)

    threads = [threading.Thread(target=attempt, args=(body,)) for body in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return outcomes


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_admin_offers_never_overcommit() -> None:
    event = _event(max_attendees=5)
    fill_with_rsvps(event, 2)  # three seats free
    entries = [_entry(event) for _ in range(8)]
    token = issue_token_pair(event.organization.owner).access
    bodies = [{"waitlist_entry_id": str(entry.pk)} for entry in entries]

    outcomes = _race_posts(token, f"/api{_url(event)}", bodies)

    assert Counter(outcomes) == {(201, ""): 3, (409, "capacity"): 5}, outcomes
    held = WaitlistOffer.objects.filter(event=event, status=Status.PENDING)
    assert held.count() == 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_racing_offers_for_one_entry_leave_one_pending_offer() -> None:
    event = _event()
    entry = _entry(event)
    token = issue_token_pair(event.organization.owner).access

    outcomes = _race_posts(token, f"/api{_url(event)}", [{"waitlist_entry_id": str(entry.pk)}] * 5)

    assert Counter(outcomes) == {(201, ""): 1, (409, "pending_offer_exists"): 4}, outcomes
    assert WaitlistOffer.objects.filter(event=event, user=entry.user).count() == 1
