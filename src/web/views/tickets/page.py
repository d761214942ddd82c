"""`/manage/events/{event_id}/tickets`: the event's ticket types, then its tickets, found
with "Find ticket" (a GET parameter, so it works without JavaScript and can be linked).

The page and every action on it need `manage_tickets`; a refused action re-renders the
page with its message in the row it is about.
"""

import uuid
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from events.core.selectors.access import access_event_admin
from events.models import Event, StaffPermission
from events.ticketing.selectors import back_office
from events.ticketing.services.payments import stripe_api
from events.ticketing.services.payments.connection import account_for
from web.views.access import signed_in

MANAGE = StaffPermission.MANAGE_TICKETS


@dataclass(frozen=True)
class Refusal:
    """A refused action, shown in the row of the tier or ticket it was about."""

    id: uuid.UUID
    message: str


def manage_tickets(request: HttpRequest, event_id: uuid.UUID) -> Event:
    """The event, if the viewer may manage its tickets (else 404 / 403, as the API)."""
    return access_event_admin(request.user, event_id, MANAGE)


def online_ready(event: Event) -> bool:
    """Buyers can pay this event's online tiers: the platform has Stripe keys and the
    organisation a Stripe account that takes charges (the checkout's own test)."""
    return stripe_api.is_enabled() and account_for(event.organization_id) is not None


def tickets_path(event_id: uuid.UUID, query: str = "") -> str:
    """The page, keeping the search a row's action was made from."""
    suffix = f"?{urlencode({'q': query})}" if query else ""
    return f"/manage/events/{event_id}/tickets{suffix}"


def page_number(request: HttpRequest) -> int:
    try:
        return int(request.GET.get("page", "1"))
    except ValueError:
        return 1


@require_GET
@signed_in
def tickets_page(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    return render_page(request, manage_tickets(request, event_id))


def render_page(
    request: HttpRequest,
    event: Event,
    *,
    query: str | None = None,
    tier_refusal: Refusal | None = None,
    ticket_refusal: Refusal | None = None,
    status: int = 200,
) -> HttpResponse:
    query = request.GET.get("q", "") if query is None else query
    tickets = back_office.ticket_page(event, query, page_number(request))
    context = {
        "event": event,
        "tiers": back_office.event_tiers(event),
        "online_ready": online_ready(event),
        "tickets": tickets,
        "query": tickets.query,
        "tier_refusal": tier_refusal,
        "ticket_refusal": ticket_refusal,
        "ticket_refusal_elsewhere": ticket_refusal is not None
        and all(row.id != ticket_refusal.id for row in tickets.rows),
        "zone": event.timezone or "UTC",
    }
    return render(request, "web/tickets/page.html", context, status=status)
