"""`/me`: the signed-in attendee's upcoming RSVPs, tickets and waitlist places.

One selector (`events.core.selectors.my_upcoming`, the API's `/me/...` lists narrowed to
events not over yet): a fixed number of queries whatever the number of events.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from events.core.selectors.me import own_live_offer
from events.core.selectors.my_upcoming import my_upcoming
from web.views.access import signed_in, viewer_zone


@require_GET
@signed_in
def my_page(request: HttpRequest) -> HttpResponse:
    upcoming = my_upcoming(request.user)  # type: ignore[arg-type]
    places = [(entry, own_live_offer(entry)) for entry in upcoming.waitlist]
    context = {
        "rsvps": upcoming.rsvps,
        "tickets": upcoming.tickets,
        "places": places,
        "zone": viewer_zone(request),
    }
    return render(request, "web/me/dashboard.html", context)
