"""The buttons of the "Your status" region: plain POST forms, redirect back to the page.

Each calls the service of the matching API route (`POST /api/events/{id}/rsvp/{answer}`,
`/waitlist/join`, `DELETE /waitlist/leave`, `/tickets/{ticket_id}/cancel`) on the event
from `get_participation_event` (the API's door). A refusal (an eligibility refusal, a
409 …) changes nothing: the page is rendered again with the refusal in the region and the
refusal's status code. A missing or invisible event or ticket stays a 404 page.

"Cancel my RSVP" and "Cancel ticket" ask first (`web.views.confirm`), naming what is given
up; an RSVP or ticket that is no longer there to give back goes straight to the service,
which answers as the API does.
"""

import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from accounts.models import User
from common.errors import (
    Busy,
    EncoreError,
    InvalidInput,
    NotFound,
    PermissionDenied,
    Unavailable,
)
from events.core.selectors.cancellation import own_rsvp_seats, own_ticket
from events.core.selectors.event import get_participation_event, get_public_event
from events.core.services.event_manager import EventManager
from events.models import Event, EventRSVP, Ticket
from events.ticketing.services import cancellation as cancellation_service
from events.waitlist import services as waitlist_service
from events.waitlist.selectors.queue import own_live_offer_seats
from web.views.access import signed_in
from web.views.confirm import confirm_first
from web.views.event.page import render_page

#: Errors that are not a refusal of the action: the error page shows them (404, 403, 503).
NOT_A_REFUSAL = (NotFound, PermissionDenied, Busy, Unavailable)

Action = Callable[[User, Event], object]


def event_path(event_id: uuid.UUID) -> str:
    return f"/events/{event_id}"


def perform(request: HttpRequest, event_id: uuid.UUID, action: Action) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    event = get_participation_event(user, event_id)
    try:
        action(user, event)
    except NOT_A_REFUSAL:
        raise
    except EncoreError as refusal:
        return refused(request, event_id, refusal)
    return redirect(event_path(event_id))


def refused(request: HttpRequest, event_id: uuid.UUID, refusal: EncoreError) -> HttpResponse:
    event = get_public_event(request.user, event_id)
    return render_page(request, event, message=gettext(refusal.detail), status=refusal.status_code)


def _rsvp(answer: str, guests: int | None = None) -> Action:
    def answer_rsvp(user: User, event: Event) -> object:
        return EventManager(user, event).rsvp(answer, guests=guests)

    return answer_rsvp


def _whole_number(request: HttpRequest, name: str, default: int) -> int:
    """A number field of a POST form; anything but digits is a clear refusal (400)."""
    raw = request.POST.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise InvalidInput({name: [gettext("Enter a whole number.")]})
    return int(raw)


@require_POST
@signed_in
def attend(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    """ "Attend", with the "Guests" field when the event allows parties (the field
    suggests at most its largest party; the service's bound, 0..9, is the rule)."""

    def attend_with_guests(user: User, event: Event) -> object:
        guests = _whole_number(request, "guests", 0)
        return _rsvp(EventRSVP.Status.YES, guests)(user, event)

    return perform(request, event_id, attend_with_guests)


@require_POST
@signed_in
def cancel_rsvp(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    event = get_participation_event(user, event_id)
    seats = own_rsvp_seats(event, user.pk)
    if seats:
        consequence = ngettext(
            "You give up your seat at %(event)s; it can go to someone else.",
            "You give up your %(count)d seats at %(event)s (yours and your guests'); "
            "they can go to someone else.",
            seats,
        ) % {"count": seats, "event": event.name}
        asked = confirm_first(
            request,
            action=gettext("Cancel my RSVP"),
            consequence=consequence,
            yes_label=gettext("Yes, cancel my RSVP"),
            keep_url=event_path(event_id),
        )
        if asked is not None:
            return asked
    return perform(request, event_id, _rsvp(EventRSVP.Status.NO))


@require_POST
@signed_in
def claim(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    """ "Claim my seat": the RSVP yes that claims the held offer; ticketed events claim
    through the checkout (the offer is claimed with the tickets)."""
    event = get_participation_event(request.user, event_id)
    if event.requires_ticket:
        return redirect(f"{event_path(event_id)}/checkout")

    def claim_for_party(user: User, event: Event) -> object:
        seats = own_live_offer_seats(event.pk, user.pk, timezone.now()) or 1
        return _rsvp(EventRSVP.Status.YES, seats - 1)(user, event)

    return perform(request, event_id, claim_for_party)


@require_POST
@signed_in
def join(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    """ "Join the waitlist", with "Party size" and "Ticket type" when the event has them."""

    def join_with_party(user: User, event: Event) -> object:
        return waitlist_service.join_waitlist(
            user,
            event,
            party_size=_whole_number(request, "party_size", 1),
            tier_id=_tier_choice(request),
        )

    return perform(request, event_id, join_with_party)


def _tier_choice(request: HttpRequest) -> uuid.UUID | None:
    """ "Ticket type": empty is "Any ticket type"; an unknown tier is the API's 404."""
    raw = request.POST.get("tier_id", "").strip()
    if not raw:
        return None
    try:
        return uuid.UUID(raw)
    except ValueError as error:
        raise InvalidInput({"tier_id": [gettext("Choose a ticket type from the list.")]}) from error


@require_POST
@signed_in
def leave(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    return perform(request, event_id, waitlist_service.leave_waitlist)


@require_POST
@signed_in
def cancel_ticket(request: HttpRequest, event_id: uuid.UUID, ticket_id: uuid.UUID) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    event = get_participation_event(user, event_id)
    ticket = own_ticket(event, user.pk, ticket_id)
    if ticket is not None and ticket.status in (Ticket.Status.ACTIVE, Ticket.Status.PENDING):
        asked = confirm_first(
            request,
            action=gettext("Cancel ticket"),
            consequence=_ticket_consequence(event, ticket),
            yes_label=gettext("Yes, cancel ticket"),
            keep_url=event_path(event_id),
        )
        if asked is not None:
            return asked

    def give_back(user: User, event: Event) -> object:
        return cancellation_service.cancel_ticket_by_user(user, ticket_id, event_id=event.pk)

    return perform(request, event_id, give_back)


def _ticket_consequence(event: Event, ticket: Ticket) -> str:
    """Which ticket is given back, and where a paid one's money is (never with Encore)."""
    names = {"tier": ticket.tier.name, "event": event.name, "holder": ticket.holder_name}
    if ticket.holder_name:
        said = gettext(
            "The %(tier)s ticket of %(holder)s for %(event)s is cancelled; "
            "its seat can go to someone else."
        )
    else:
        said = gettext(
            "Your %(tier)s ticket for %(event)s is cancelled; its seat can go to someone else."
        )
    said %= names
    if ticket.paid_at is not None:
        said += " " + gettext("You paid for it: ask %(organiser)s for your money back.") % {
            "organiser": event.organization.name
        }
    return said
