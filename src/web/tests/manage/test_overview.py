"""`/manage/events/<id>`: status and its transitions, seats, attendees, check-in, CSV."""

import csv
import io
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_org,
    make_staff,
    make_tier,
)
from events.models import Event, Ticket, TicketTier, WaitlistOffer
from web.tests.manage.helpers import body, signed_in_client

pytestmark = pytest.mark.django_db


def _buttons(page: str) -> set[str]:
    return {name for name in ("Open", "Close", "Cancel event") if f">{name}</button>" in page}


def _ticketed(**fields: Any) -> tuple[Event, TicketTier]:
    fields.setdefault("start", timezone.now() + timedelta(minutes=30))
    event = make_event(make_org(), requires_ticket=True, **fields)
    return event, make_tier(event, name="Standard")


def test_overview_shows_status_seats_attendees_and_its_links() -> None:
    owner = make_user()
    event = make_event(make_org(owner), name="Quiz Night", max_attendees=10)
    people = fill_with_rsvps(event, 3)
    WaitlistOffer.objects.create(
        event=event,
        user=make_user(),
        batch_id=uuid.uuid4(),
        status=WaitlistOffer.WaitlistOfferStatus.PENDING,
        expires_at=timezone.now() + timedelta(hours=2),
    )
    page = body(signed_in_client(owner).get(f"/manage/events/{event.pk}"))
    assert "<h1>Quiz Night</h1>" in page
    assert "<strong>Open</strong>" in page
    assert "<dt>RSVP'd</dt><dd>3</dd>" in page
    assert "<dt>Held for the waitlist</dt><dd>1</dd>" in page
    assert "<dt>Free</dt><dd>6</dd>" in page
    for person in people:
        assert person.email in page
    assert f'href="/manage/events/{event.pk}/attendees.csv" download>Download CSV</a>' in page
    assert f'href="/manage/events/{event.pk}/edit">Edit</a>' in page
    assert f'href="/manage/events/{event.pk}/waitlist">Waitlist</a>' in page


@pytest.mark.parametrize(
    ("status", "shown"),
    [
        (Event.Status.DRAFT, {"Open", "Cancel event"}),
        (Event.Status.OPEN, {"Close", "Cancel event"}),
        (Event.Status.CLOSED, {"Open", "Cancel event"}),
        (Event.Status.CANCELLED, {"Open"}),
    ],
)
def test_only_the_transitions_allowed_from_the_status_are_buttons(
    status: str, shown: set[str]
) -> None:
    owner = make_user()
    event = make_event(make_org(owner), status=status)
    assert _buttons(body(signed_in_client(owner).get(f"/manage/events/{event.pk}"))) == shown


@pytest.mark.parametrize(
    ("before", "target", "after"),
    [
        (Event.Status.DRAFT, "open", Event.Status.OPEN),
        (Event.Status.OPEN, "closed", Event.Status.CLOSED),
        (Event.Status.OPEN, "cancelled", Event.Status.CANCELLED),
        (Event.Status.CLOSED, "open", Event.Status.OPEN),
    ],
)
def test_each_transition_changes_the_status_and_comes_back(
    before: str, target: str, after: str
) -> None:
    owner = make_user()
    event = make_event(make_org(owner), status=before)
    client = signed_in_client(owner)
    # "Cancel event" asks first (test_cancel_event); the answer "yes" comes with the post.
    response = client.post(f"/manage/events/{event.pk}/status/{target}", {"confirmed": "yes"})
    assert response.status_code == 302
    assert response["Location"] == f"/manage/events/{event.pk}"
    event.refresh_from_db()
    assert event.status == after


def test_a_refused_transition_shows_next_to_the_buttons_and_changes_nothing() -> None:
    owner = make_user()
    event = make_event(make_org(owner), status=Event.Status.CANCELLED)
    response = signed_in_client(owner).post(f"/manage/events/{event.pk}/status/closed")
    assert response.status_code == 409
    assert 'class="refusal" role="alert">The event cannot move from' in body(response)
    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED


def test_staff_see_and_may_use_only_the_transitions_they_hold() -> None:
    organization = make_org()
    draft = make_event(organization, status=Event.Status.DRAFT)
    staff = make_staff(organization, open_event=False)
    client = signed_in_client(staff)
    assert _buttons(body(client.get(f"/manage/events/{draft.pk}"))) == {"Cancel event"}
    assert client.post(f"/manage/events/{draft.pk}/status/open").status_code == 403
    closer = make_staff(organization, close_event=False)
    opened = make_event(organization, status=Event.Status.OPEN)
    closer_client = signed_in_client(closer)
    assert _buttons(body(closer_client.get(f"/manage/events/{opened.pk}"))) == set()
    assert closer_client.post(f"/manage/events/{opened.pk}/status/cancelled").status_code == 403
    draft.refresh_from_db()
    opened.refresh_from_db()
    assert (draft.status, opened.status) == (Event.Status.DRAFT, Event.Status.OPEN)


def test_check_in_marks_the_ticket_and_the_overview_says_so() -> None:
    event, tier = _ticketed()
    (holder,) = fill_with_tickets(event, tier, 1)
    ticket = Ticket.objects.get(user=holder)
    client = signed_in_client(event.organization.owner)
    page = body(client.get(f"/manage/events/{event.pk}"))
    assert ">Check in</button>" in page
    response = client.post(f"/manage/events/{event.pk}/checkin/{ticket.pk}")
    assert response.status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.CHECKED_IN
    after = body(client.get(f"/manage/events/{event.pk}"))
    assert "Checked in" in after
    assert ">Check in</button>" not in after


def test_a_refused_check_in_shows_in_its_row_and_changes_nothing() -> None:
    event, tier = _ticketed(start=timezone.now() + timedelta(days=5))  # window not open yet
    (holder,) = fill_with_tickets(event, tier, 1)
    ticket = Ticket.objects.get(user=holder)
    response = signed_in_client(event.organization.owner).post(
        f"/manage/events/{event.pk}/checkin/{ticket.pk}"
    )
    assert response.status_code in (400, 409)
    page = body(response)
    assert 'class="refusal" role="alert"' in page
    assert page.index(holder.email) < page.index('class="refusal"')
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE


def test_check_in_from_htmx_answers_with_the_row_and_an_announcement() -> None:
    event, tier = _ticketed()
    (holder,) = fill_with_tickets(event, tier, 1)
    ticket = Ticket.objects.get(user=holder)
    client = signed_in_client(event.organization.owner)
    url = f"/manage/events/{event.pk}/checkin/{ticket.pk}"
    response = client.post(url, headers={"HX-Request": "true"})
    assert response.status_code == 200
    answer = body(response)
    assert answer.startswith("<tr>")
    assert holder.email in answer
    assert "Checked in" in answer
    assert 'id="check-in-status" role="status"' in answer
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.CHECKED_IN
    again = body(client.post(url, headers={"HX-Request": "true"}))
    assert 'class="refusal" role="alert"' in again  # already checked in: said in the row


def test_check_in_needs_check_in_attendees() -> None:
    event, tier = _ticketed()
    fill_with_tickets(event, tier, 1)
    ticket = Ticket.objects.get(event=event)
    staff = make_staff(event.organization, check_in_attendees=False, manage_tickets=True)
    client = signed_in_client(staff)
    assert ">Check in</button>" not in body(client.get(f"/manage/events/{event.pk}"))
    assert client.post(f"/manage/events/{event.pk}/checkin/{ticket.pk}").status_code == 403
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE


def _csv(client: Client, event: Event) -> list[list[str]]:
    response = client.get(f"/manage/events/{event.pk}/attendees.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    return list(csv.reader(io.StringIO(text)))


def test_csv_of_rsvps_has_the_header_and_one_row_per_yes() -> None:
    owner = make_user()
    event = make_event(make_org(owner))
    people = fill_with_rsvps(event, 2)
    rows = _csv(signed_in_client(owner), event)
    assert rows[0][:6] == ["name", "email", "type", "ticket_type", "status", "checked_in_at"]
    assert sorted(row[1] for row in rows[1:]) == sorted(p.email for p in people)
    assert {tuple(row[2:5]) for row in rows[1:]} == {("rsvp", "", "yes")}


def test_csv_of_tickets_has_tier_status_and_check_in_time() -> None:
    event, tier = _ticketed()
    (holder,) = fill_with_tickets(event, tier, 1)
    Ticket.objects.filter(user=holder).update(
        status=Ticket.Status.CHECKED_IN, checked_in_at=timezone.now(), holder_name="=SUM(A1)"
    )
    rows = _csv(signed_in_client(event.organization.owner), event)
    assert len(rows) == 2
    name, email, kind, tier_name, status, checked_in, *payment = rows[1]
    assert (name, email, kind, tier_name, status) == (
        "'=SUM(A1)",  # no formula runs when the file is opened in a spreadsheet
        holder.email,
        "ticket",
        "Standard",
        "checked_in",
    )
    assert checked_in
    assert payment == ["", "", "", ""]  # not paid online


def test_csv_and_overview_need_the_attendee_list_permission() -> None:
    rsvp_event = make_event(make_org())
    no_manage = make_staff(rsvp_event.organization, manage_event=False)
    client = signed_in_client(no_manage)
    assert client.get(f"/manage/events/{rsvp_event.pk}/attendees.csv").status_code == 403
    assert client.get(f"/manage/events/{rsvp_event.pk}").status_code == 403
    ticketed, _ = _ticketed()
    no_tickets = make_staff(ticketed.organization, manage_tickets=False)
    tickets_client = signed_in_client(no_tickets)
    assert tickets_client.get(f"/manage/events/{ticketed.pk}/attendees.csv").status_code == 403
    assert tickets_client.get(f"/manage/events/{ticketed.pk}").status_code == 403


def _queries(client: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_overview_costs_the_same_queries_for_one_attendee_or_many() -> None:
    event, tier = _ticketed()
    staff = make_staff(event.organization, manage_tickets=True)
    client = signed_in_client(staff)
    fill_with_tickets(event, tier, 1)
    one = _queries(client, f"/manage/events/{event.pk}")
    fill_with_tickets(event, tier, 60)  # more than one page
    assert _queries(client, f"/manage/events/{event.pk}") == one
    rsvp_event = make_event(event.organization)
    fill_with_rsvps(rsvp_event, 1)
    rsvp_one = _queries(client, f"/manage/events/{rsvp_event.pk}")
    fill_with_rsvps(rsvp_event, 60)
    assert _queries(client, f"/manage/events/{rsvp_event.pk}") == rsvp_one
    # the figures: held seats and check-ins; the takings online and offline (tickets)
    assert max(one, rsvp_one) <= 13


def test_attendees_come_in_pages_of_50_with_next_and_previous() -> None:
    owner = make_user()
    event = make_event(make_org(owner))
    people = fill_with_rsvps(event, 53)
    client = signed_in_client(owner)
    first = body(client.get(f"/manage/events/{event.pk}"))
    assert first.count('<th scope="row">') == 50
    assert 'href="?page=2#attendees">Next page</a>' in first
    assert "Page 1 of 2" in first
    second = body(client.get(f"/manage/events/{event.pk}?page=2"))
    assert second.count('<th scope="row">') == 3
    assert all(p.email in first or p.email in second for p in people)
    assert not any(p.email in first and p.email in second for p in people)
    assert 'href="?page=1#attendees">Previous page</a>' in second
    assert body(client.get(f"/manage/events/{event.pk}?page=99")).count('<th scope="row">') == 3
