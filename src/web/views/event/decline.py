"""`/events/{event_id}/decline`: the offer e-mail's "Decline the offer" link, and the
event page's button of that name.

The e-mail's link is a GET, which mail scanners and link previews follow on their own,
so a GET only asks: a short page with the offer's deadline and the "Decline the offer"
button. The POST (that button, or the one in the event page's status region) calls
`waitlist_service.decline_offer`, the service of `POST /api/events/{id}/waitlist/decline`,
and goes back to the event page; a refusal (no live offer) shows in its status region,
as every button's refusal does (`actions.perform`).
"""

import uuid

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from accounts.models import User
from events.core.selectors.event import get_participation_event
from events.waitlist import services as waitlist_service
from events.waitlist.selectors.queue import live_offers
from web.views.access import activate_viewer_zone, signed_in
from web.views.event.actions import perform


@require_http_methods(["GET", "POST"])
@signed_in
def decline(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    if request.method == "POST":
        return perform(request, event_id, waitlist_service.decline_offer)
    user: User = request.user  # type: ignore[assignment]
    event = get_participation_event(user, event_id)
    offer = live_offers(timezone.now()).filter(event=event, user=user).first()
    context = {
        "event": event,
        "offer": offer,
        "zone": activate_viewer_zone(request, event.timezone or "UTC"),
    }
    return render(request, "web/event/decline.html", context)
