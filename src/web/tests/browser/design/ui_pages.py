"""Every page of docs/spec/ui.md on the demo data of `make run`, with who sees it.

One list for `make screens` (scripts/screens.py) and for the design's browser tests, so
the pictures in docs/screens and the checks cover the same pages. Pages the spec lists
that the app does not serve yet answer 404: both skip them.
"""

from dataclasses import dataclass

from events.management.commands.load_demo import (
    ADA,
    BEN,
    CLEO,
    EVE,
    FULL_EVENT,
    ORG_SLUG,
    OWNER,
    TICKETED_EVENT,
    DemoUser,
)
from events.models import Event, EventRSVP, EventSeries, Ticket


@dataclass(frozen=True)
class UiPage:
    name: str
    path: str
    #: Who looks at it (None: a visitor who is not signed in).
    viewer: DemoUser | None


def ui_pages() -> list[UiPage]:
    """The pages in the spec's order, each with the demo row that shows it best."""
    full = Event.objects.get(organization__slug=ORG_SLUG, slug=FULL_EVENT.slug)
    ticketed = Event.objects.get(organization__slug=ORG_SLUG, slug=TICKETED_EVENT.slug)
    series = EventSeries.objects.filter(organization__slug=ORG_SLUG).order_by("created_at")[0]
    ticket = Ticket.objects.filter(user__email=BEN.email).order_by("created_at").first()
    rsvp = EventRSVP.objects.filter(user__email=BEN.email).order_by("created_at").first()
    manage_org, manage_full = f"/manage/{ORG_SLUG}", f"/manage/events/{full.pk}"
    pages = [
        UiPage("home", "/", None),
        UiPage("login", "/login", None),
        UiPage("signup", "/signup", None),
        UiPage("password-reset", "/password-reset", None),
        UiPage("event", f"/events/{full.pk}", ADA),
        UiPage("event-tickets", f"/events/{ticketed.pk}", CLEO),
        UiPage("event-visitor", f"/events/{ticketed.pk}", None),
        UiPage("event-queue", f"/events/{ticketed.pk}/queue", CLEO),
        UiPage("series", f"/events/{ORG_SLUG}/series/{series.slug}", BEN),
        UiPage("me", "/me", EVE),
        UiPage("me-notifications", "/me/notifications", ADA),
        UiPage("me-settings", "/me/settings", ADA),
        UiPage("manage", "/manage", OWNER),
        UiPage("manage-organisation", manage_org, OWNER),
        UiPage("manage-team", f"{manage_org}/team", OWNER),
        UiPage("manage-settings", f"{manage_org}/settings", OWNER),
        UiPage("manage-webhooks", f"{manage_org}/webhooks", OWNER),
        UiPage("manage-event-new", f"{manage_org}/events/new", OWNER),
        UiPage("manage-event-edit", f"{manage_full}/edit", OWNER),
        UiPage("manage-event", manage_full, OWNER),
        UiPage("manage-tickets", f"/manage/events/{ticketed.pk}/tickets", OWNER),
        UiPage("manage-waitlist", f"{manage_full}/waitlist", OWNER),
        UiPage("manage-check-in", f"/manage/events/{ticketed.pk}/check-in", OWNER),
        UiPage("manage-messages", f"{manage_full}/messages", OWNER),
        UiPage("manage-waiting-room", f"/manage/events/{ticketed.pk}/waiting-room", OWNER),
        UiPage("manage-series-new", f"{manage_org}/series/new", OWNER),
        UiPage("manage-series", f"/manage/series/{series.pk}", OWNER),
    ]
    if ticket is not None:
        pages.insert(12, UiPage("me-ticket", f"/me/tickets/{ticket.pk}", BEN))
    if rsvp is not None:
        pages.insert(12, UiPage("me-rsvp", f"/me/rsvps/{rsvp.pk}", BEN))
    return pages
