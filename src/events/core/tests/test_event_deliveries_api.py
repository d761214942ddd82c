"""/event-admin/{event_id}/deliveries: the organiser sees the mail about the event that
did not arrive, with its reason (ADR 0036). The permission matrix covers the refusals."""

from collections.abc import Iterator
from typing import Any

import pytest

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event
from events.models import Event
from notifications.tests.servers import SmtpServer, smtp_backend

pytestmark = pytest.mark.django_db

REFUSED = "550 5.1.1 No such mailbox here"


@pytest.fixture
def smtp(settings: Any) -> Iterator[SmtpServer]:
    with smtp_backend(settings) as server:
        yield server


def _rsvp(api: Any, event: Event, django_capture_on_commit_callbacks: Any) -> Any:
    attendee = make_user()
    with django_capture_on_commit_callbacks(execute=True):
        answer = api(attendee).post(f"/events/{event.pk}/rsvp/yes")
    assert answer.status_code == 200, answer.content
    return attendee


def test_a_refused_confirmation_is_listed_failed_with_its_reason(
    api: Any, smtp: SmtpServer, django_capture_on_commit_callbacks: Any
) -> None:
    event, elsewhere = make_event(max_attendees=5), make_event(max_attendees=5)
    delivered = _rsvp(api, event, django_capture_on_commit_callbacks)
    smtp.handler.fail_next(REFUSED)
    refused = _rsvp(api, event, django_capture_on_commit_callbacks)
    _rsvp(api, elsewhere, django_capture_on_commit_callbacks)
    owner = api(event.organization.owner)

    failed = owner.get(f"/event-admin/{event.pk}/deliveries?status=failed")
    every = owner.get(f"/event-admin/{event.pk}/deliveries")

    assert failed.status_code == 200, failed.content
    [row] = failed.json()["results"]
    assert row["recipient"] == {"id": str(refused.pk), "display_name": refused.display_name}
    assert (row["notification_type"], row["channel"]) == ("rsvp_confirmation", "email")
    assert row["status"] == "failed" and row["next_attempt_at"] is None
    assert "550" in row["error"]
    # Both of this event's e-mails, newest first; no in-app row, nothing of the other event.
    assert [(r["recipient"]["id"], r["status"]) for r in every.json()["results"]] == [
        (str(refused.pk), "failed"),
        (str(delivered.pk), "sent"),
    ]


def test_an_unknown_status_is_a_422(api: Any) -> None:
    event = make_event()
    answer = api(event.organization.owner).get(f"/event-admin/{event.pk}/deliveries?status=lost")
    assert answer.status_code == 422
