"""`/events/{event_id}`: the event and the viewer's "Your status" region; and the region alone.

The event comes from `get_public_event` (the selector of `GET /api/events/{id}`: the same
visibility, 404 for an event the viewer may not see, and the same numbers hidden by
`visibility_settings`); the region from `situation_for` (the pipeline behind
`GET /api/events/{id}/my-status`). `/events/{id}/status` renders only the region: the
page polls it (htmx) so a change shows within seconds without a reload.
"""

import uuid

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from events.core.schemas.event import shows_attendee_count, shows_capacity
from events.core.selectors.event import get_public_event, seats_held
from events.core.selectors.images import image_size
from events.models import Event
from events.series.selectors.series_pages import series_link_of
from web.views.access import activate_viewer_zone
from web.views.event.situation import Situation, situation_for

#: How often the open page asks for the region (docs/spec/ui.md: a change shows within 10 s).
STATUS_POLL_SECONDS = 5
STATE_HEADER = "X-Encore-State"


def seat_numbers(event: Event) -> dict[str, int | None]:
    """Capacity, taken and held, each None where the event hides it (as the API does)."""
    capacity_shown = shows_capacity(event)
    return {
        "capacity": event.effective_capacity if capacity_shown else None,
        "taken": event.attendee_count if shows_attendee_count(event) else None,
        "held": seats_held(event) if capacity_shown else None,
    }


def status_context(request: HttpRequest, situation: Situation) -> dict[str, object]:
    event = situation.event
    return {
        "event": event,
        "situation": situation,
        "zone": activate_viewer_zone(request, event.timezone or "UTC"),
        "poll_seconds": STATUS_POLL_SECONDS,
    }


def render_page(
    request: HttpRequest, event: Event, *, message: str = "", status: int = 200
) -> HttpResponse:
    """The whole page; a refused action re-renders it with `message` in the region."""
    situation = situation_for(request.user, event, message=message)
    context = status_context(request, situation) | {
        "seats": seat_numbers(event),
        "series": series_link_of(event),
        "cover": image_size(event.cover_image_id),
    }
    return render(request, "web/event/page.html", context, status=status)


def payment_notice(request: HttpRequest) -> str:
    """Back from Stripe's Checkout page (`?payment=done|cancelled`, the session's return
    addresses): the tickets turn active when Stripe's webhook arrives, seconds later."""
    answer = request.GET.get("payment")
    if answer == "done":
        return gettext(
            "Thank you. Your payment is being confirmed; your tickets become valid in a moment."
        )
    if answer == "cancelled":
        return gettext(
            "The payment was not completed. Your seats stay held until the checkout expires."
        )
    return ""


@require_GET
def event_page(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    event = get_public_event(request.user, event_id)
    return render_page(request, event, message=payment_notice(request))


@require_GET
def event_status(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    """Only the region (polled by the page); its digest in a header, so the poller can
    leave an unchanged region alone."""
    situation = situation_for(request.user, get_public_event(request.user, event_id))
    response = render(request, "web/event/_status.html", status_context(request, situation))
    response[STATE_HEADER] = situation.state
    response["Cache-Control"] = "no-store"
    return response
