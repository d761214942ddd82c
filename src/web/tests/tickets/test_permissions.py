"""Who may use the tickets pages: `manage_tickets`, as the admin API's ticket routes.

Anonymous → the log-in page and back; staff without the permission and users who are not
staff → 403; an event they cannot see → 404; a refused POST changes nothing."""

from urllib.parse import quote

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.core.tests.factories import make_staff
from events.models import Event, Organization, Ticket, TicketTier
from web.tests.manage.helpers import signed_in_client
from web.tests.tickets.support import Box, box_office, confirmed, pending_ticket

pytestmark = pytest.mark.django_db


@pytest.fixture
def box() -> Box:
    return box_office()


def _routes(box: Box, ticket: Ticket) -> list[tuple[str, str, dict[str, str]]]:
    tier = str(box.tier.pk)
    sale = {"email": box.owner.email, "ticket_type": tier}
    return [
        ("get", box.page, {}),
        ("get", f"{box.page}/types/new", {}),
        ("post", f"{box.page}/types/new", {"name": "X", "currency": "EUR", "price": "1"}),
        ("get", box.tier_path(box.tier, "edit"), {}),
        ("post", box.tier_path(box.tier, "edit"), {"name": "X", "currency": "EUR"}),
        ("post", box.tier_path(box.tier, "delete"), confirmed()),
        ("post", box.ticket_path(ticket, "paid"), {}),
        ("get", box.ticket_path(ticket, "refund"), {}),
        ("post", box.ticket_path(ticket, "refund"), confirmed({"amount": "25"})),
        ("post", box.ticket_path(ticket, "cancel"), confirmed()),
        ("get", f"{box.page}/sell", {}),
        ("post", f"{box.page}/sell", sale),
    ]


def _answers(client: Client, box: Box, ticket: Ticket) -> list[tuple[str, int]]:
    return [
        (url, getattr(client, method)(url, data).status_code)
        for method, url, data in _routes(box, ticket)
    ]


def _nothing_changed(box: Box, ticket: Ticket) -> None:
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.PENDING
    assert list(TicketTier.objects.filter(event=box.event).values_list("name", flat=True)) == [
        "Standing"
    ]
    assert Ticket.objects.filter(event=box.event).count() == 1


def test_anonymous_visitors_go_to_the_log_in_page_and_back(box: Box) -> None:
    ticket = pending_ticket(box)

    client = Client()
    response = client.get(box.page)

    assert response["Location"] == f"/login?next={quote(box.page, safe='')}"
    for url, status in _answers(client, box, ticket):
        assert status == 302, url
    _nothing_changed(box, ticket)


def test_staff_without_manage_tickets_and_strangers_get_403(box: Box) -> None:
    ticket = pending_ticket(box)
    staff = make_staff(box.event.organization, manage_tickets=False)

    for user in (staff, make_user()):
        for url, status in _answers(signed_in_client(user), box, ticket):
            assert status == 403, url
    _nothing_changed(box, ticket)


def test_an_event_the_user_cannot_see_is_404(box: Box) -> None:
    ticket = pending_ticket(box)
    Organization.objects.filter(pk=box.event.organization_id).update(
        visibility=Organization.Visibility.PRIVATE
    )
    Event.objects.filter(pk=box.event.pk).update(status=Event.Status.DRAFT)

    for url, status in _answers(signed_in_client(make_user()), box, ticket):
        assert status == 404, url
    _nothing_changed(box, ticket)


def test_staff_with_manage_tickets_may_act(box: Box) -> None:
    ticket = pending_ticket(box)
    staff = make_staff(box.event.organization, manage_tickets=True)
    client = signed_in_client(staff)

    assert client.get(box.page).status_code == 200
    assert client.post(box.ticket_path(ticket, "paid")).status_code == 302
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.ACTIVE


def test_another_events_ticket_is_not_found(box: Box) -> None:
    other = box_office()
    ticket = pending_ticket(other)

    for action in ("paid", "cancel"):
        assert box.client.post(box.ticket_path(ticket, action), confirmed()).status_code == 404
    assert box.client.get(box.ticket_path(ticket, "refund")).status_code == 404
    ticket.refresh_from_db()
    assert ticket.status == Ticket.Status.PENDING
