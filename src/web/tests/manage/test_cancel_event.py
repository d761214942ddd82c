"""'Cancel event' on `/manage/events/<id>` asks first, names who hears of it, and sends the
organiser's "Message to attendees" with the notice."""

from typing import Any

import pytest
from django.core import mail

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_org,
    make_staff,
)
from events.models import Event, EventWaitList
from events.ticketing.tests.ticket_helpers import free_tier
from notifications.models import Notification
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db

YES = {"confirmed": "yes"}


def _cancel(
    user: User, event: Event, data: dict[str, Any] | None = None, *, dialog: bool = False
) -> Any:
    client = signed_in_client(user)
    headers = {"X-Encore-Confirm": "dialog"} if dialog else {}
    return client.post(f"/manage/events/{event.pk}/status/cancelled", data or {}, headers=headers)


def _status(event: Event) -> str:
    event.refresh_from_db()
    return event.status


def test_cancel_event_asks_first_and_names_how_many_are_told() -> None:
    owner = make_user()
    event = make_event(make_org(owner), name="Quiz Night", max_attendees=20)
    fill_with_rsvps(event, 12)
    response = _cancel(owner, event)
    page = body(response)
    assert response.status_code == 200
    assert '<h1 id="confirm-heading">Cancel event?</h1>' in page
    assert "12 attendees will be told." in page
    assert ">Yes, cancel the event</button>" in page
    assert f'href="/manage/events/{event.pk}" data-confirm-keep>Keep it</a>' in page
    assert '<label for="confirm-message">Message to attendees</label>' in page
    assert f'action="/manage/events/{event.pk}/status/cancelled"' in page
    assert _status(event) == Event.Status.OPEN
    assert not Notification.objects.exists()


def test_the_confirmation_names_ticket_holders_and_the_waitlist() -> None:
    owner = make_user()
    event = make_event(make_org(owner), requires_ticket=True)
    fill_with_tickets(event, free_tier(event), 2)
    fill_with_rsvps(event, 1)
    for _ in range(3):
        EventWaitList.objects.create(event=event, user=make_user())
    page = body(_cancel(owner, event))
    assert "3 attendees will be told." in page
    assert "2 of them hold tickets, which stay as they are until you refund them." in page
    assert "3 people on the waitlist keep their place and are not told." in page


def test_an_empty_event_says_nobody_is_told() -> None:
    owner = make_user()
    event = make_event(make_org(owner))
    assert "Nobody has registered, so nobody will be told." in body(_cancel(owner, event))


def test_the_dialog_asks_the_same_without_the_page() -> None:
    owner = make_user()
    event = make_event(make_org(owner))
    fill_with_rsvps(event, 1)
    response = _cancel(owner, event, dialog=True)
    assert response["X-Encore-Confirm"] == "dialog"
    assert '<h2 id="confirm-heading">Cancel event?</h2>' in body(response)
    assert "1 attendee will be told." in body(response)
    assert _status(event) == Event.Status.OPEN


def test_yes_cancels_and_the_message_reaches_the_attendees(
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner = make_user()
    event = make_event(make_org(owner, name="Folk Club"), name="Quiz Night")
    attendees = fill_with_rsvps(event, 2)
    words = "The hall flooded. We will refund you & see you in spring."
    with django_capture_on_commit_callbacks(execute=True):
        response = _cancel(owner, event, {**YES, "message": f"  {words}\n"})
    assert response.status_code == 302
    assert response["Location"] == f"/manage/events/{event.pk}"
    assert _status(event) == Event.Status.CANCELLED
    to_attendees = [m for m in mail.outbox if m.to[0] in {a.email for a in attendees}]
    assert len(to_attendees) == 2
    for message in to_attendees:
        assert "Folk Club writes:\n" + words in message.body
        html = str(message.alternatives[0][0])  # type: ignore[attr-defined]
        assert "The hall flooded. We will refund you &amp; see you in spring." in html
    notification = Notification.objects.get(user=attendees[0], notification_type="event_cancelled")
    assert notification.context["organiser_message"] == words
    assert words in notification.body


def test_yes_without_a_message_sends_the_plain_notice(
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner = make_user()
    event = make_event(make_org(owner, name="Folk Club"))
    fill_with_rsvps(event, 1)
    with django_capture_on_commit_callbacks(execute=True):
        _cancel(owner, event, YES)
    assert _status(event) == Event.Status.CANCELLED
    assert [message for message in mail.outbox if "writes:" in message.body] == []


def test_a_message_too_long_is_refused_and_changes_nothing() -> None:
    owner = make_user()
    event = make_event(make_org(owner))
    response = _cancel(owner, event, {**YES, "message": "x" * 2001})
    assert response.status_code == 400
    assert 'class="refusal" role="alert">' in body(response)
    assert _status(event) == Event.Status.OPEN


def test_an_event_already_cancelled_is_refused_without_asking() -> None:
    owner = make_user()
    event = make_event(make_org(owner), status=Event.Status.CANCELLED)
    response = _cancel(owner, event)
    assert response.status_code == 409
    assert "confirm-heading" not in body(response)


def test_who_may_not_cancel_is_never_asked() -> None:
    organization = make_org()
    event = make_event(organization)
    assert _cancel(make_staff(organization, close_event=False), event).status_code == 403
    assert _cancel(make_user(), event).status_code == 403  # a stranger: the API's answer too
    anonymous = signed_in_client(make_user())
    anonymous.logout()
    response = anonymous.post(f"/manage/events/{event.pk}/status/cancelled")
    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")
    assert _status(event) == Event.Status.OPEN


def test_the_confirmation_costs_the_same_queries_whoever_attends(
    django_assert_max_num_queries: Any,
) -> None:
    owner = make_user()
    event = make_event(make_org(owner), requires_ticket=True)
    fill_with_tickets(event, free_tier(event), 30)
    fill_with_rsvps(event, 30)
    client = signed_in_client(owner)
    with django_assert_max_num_queries(8):
        response = client.post(f"/manage/events/{event.pk}/status/cancelled")
    assert "60 attendees will be told." in body(response)


def test_a_german_attendee_reads_the_message_in_a_german_notice(
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner = make_user()
    event = make_event(make_org(owner, name="Folk Club"))
    [attendee] = fill_with_rsvps(event, 1)
    User.objects.filter(pk=attendee.pk).update(language="de")
    with django_capture_on_commit_callbacks(execute=True):
        _cancel(owner, event, {**YES, "message": "Bis bald!"})
    [message] = [m for m in mail.outbox if m.to == [attendee.email]]
    assert "Folk Club schreibt:\nBis bald!" in message.body
