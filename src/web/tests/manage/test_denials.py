"""Who may open the manage pages: anonymous → log-in and back; outsiders 404 or 403 as
the admin API answers (404 when the organisation or event is invisible to them, 403 when
they can see it but are not staff); nothing changes on a refused POST."""

import uuid
from urllib.parse import quote

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_tickets, make_event, make_org, make_tier
from events.models import Event, Organization, Ticket
from web.tests.manage.helpers import signed_in_client

pytestmark = pytest.mark.django_db


def _pages(org: Organization, event: Event, ticket_id: uuid.UUID) -> list[tuple[str, str]]:
    return [
        ("get", f"/manage/{org.slug}"),
        ("get", f"/manage/{org.slug}/events/new"),
        ("post", f"/manage/{org.slug}/events/new"),
        ("get", f"/manage/events/{event.pk}"),
        ("get", f"/manage/events/{event.pk}/edit"),
        ("post", f"/manage/events/{event.pk}/edit"),
        ("post", f"/manage/events/{event.pk}/status/closed"),
        ("post", f"/manage/events/{event.pk}/checkin/{ticket_id}"),
        ("get", f"/manage/events/{event.pk}/attendees.csv"),
    ]


Setup = tuple[Organization, Event, uuid.UUID]


@pytest.fixture
def ticketed() -> Setup:
    org = make_org(slug="secret-club")
    event = make_event(org, requires_ticket=True)
    fill_with_tickets(event, make_tier(event), 1)
    return org, event, Ticket.objects.get(event=event).pk


def test_anonymous_visitors_go_to_the_log_in_page_and_back(ticketed: Setup) -> None:
    client = Client()
    for url in ("/manage", "/manage/organizations/new"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"/login?next={quote(url, safe='')}"
    for method, url in _pages(*ticketed):
        response = getattr(client, method)(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/login?next="), url
    ticketed[1].refresh_from_db()
    assert ticketed[1].status == Event.Status.OPEN


def test_users_who_are_not_staff_get_403_on_a_visible_organisation(ticketed: Setup) -> None:
    client = signed_in_client(make_user())
    for method, url in _pages(*ticketed):
        assert getattr(client, method)(url).status_code == 403, url
    event, ticket_id = ticketed[1], ticketed[2]
    event.refresh_from_db()
    assert event.status == Event.Status.OPEN
    assert Ticket.objects.get(pk=ticket_id).status == Ticket.Status.ACTIVE


def test_an_invisible_organisation_and_event_are_404(ticketed: Setup) -> None:
    org, event, ticket_id = ticketed
    Organization.objects.filter(pk=org.pk).update(visibility=Organization.Visibility.PRIVATE)
    Event.objects.filter(pk=event.pk).update(status=Event.Status.DRAFT)
    client = signed_in_client(make_user())
    for method, url in _pages(org, event, ticket_id):
        assert getattr(client, method)(url).status_code == 404, url


def test_an_unknown_event_or_organisation_is_404() -> None:
    client = signed_in_client(make_user())
    assert client.get("/manage/no-such-club").status_code == 404
    assert client.get(f"/manage/events/{uuid.uuid4()}").status_code == 404
    assert client.get(f"/manage/events/{uuid.uuid4()}/attendees.csv").status_code == 404


def test_another_events_ticket_cannot_be_checked_in_here(ticketed: Setup) -> None:
    ticket_id = ticketed[2]
    mine = make_event(make_org(make_user()), requires_ticket=True)
    client = signed_in_client(mine.organization.owner)
    assert client.post(f"/manage/events/{mine.pk}/checkin/{ticket_id}").status_code == 404
    assert Ticket.objects.get(pk=ticket_id).status == Ticket.Status.ACTIVE
