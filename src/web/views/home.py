"""`/`: the upcoming visible events, soonest first (the selector of `GET /api/events`,
without drafts: an organiser's own drafts are not upcoming events)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from events.core.selectors.event import upcoming_published_events

#: The home page shows the next events, not the whole future: a fixed page, fixed queries.
HOME_EVENT_LIMIT = 50


def home(request: HttpRequest) -> HttpResponse:
    events = upcoming_published_events(request.user)[:HOME_EVENT_LIMIT]
    return render(request, "web/home.html", {"events": events})
