"""Routes of the attendee's event page (docs/spec/ui.md `/events/{event_id}`), included by `web.urls`.

Everything lives under `/events/<uuid>/…`; the public series page
(`/events/{org_slug}/series/{series_slug}`) belongs to the series area.
"""

from django.urls import URLPattern, path

from web.views.event import actions, calendar, checkout, decline, page

urlpatterns: list[URLPattern] = [
    path("events/<uuid:event_id>", page.event_page, name="event"),
    path("events/<uuid:event_id>/status", page.event_status, name="event-status"),
    path("events/<uuid:event_id>/attend", actions.attend, name="event-attend"),
    path("events/<uuid:event_id>/cancel-rsvp", actions.cancel_rsvp, name="event-cancel-rsvp"),
    path("events/<uuid:event_id>/claim", actions.claim, name="event-claim"),
    path("events/<uuid:event_id>/decline", decline.decline, name="event-decline"),
    path("events/<uuid:event_id>/waitlist/join", actions.join, name="event-waitlist-join"),
    path("events/<uuid:event_id>/waitlist/leave", actions.leave, name="event-waitlist-leave"),
    path(
        "events/<uuid:event_id>/tickets/<uuid:ticket_id>/cancel",
        actions.cancel_ticket,
        name="event-cancel-ticket",
    ),
    path("events/<uuid:event_id>/checkout", checkout.checkout, name="event-checkout"),
    path("events/<uuid:event_id>/calendar.ics", calendar.event_calendar, name="event-calendar"),
]
