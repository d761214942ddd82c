"""The event overview `/manage/events/<id>`, its status buttons, check-in and the CSV.

- The page and the CSV need the permission of the admin API's attendee list
  (`manage_event` for RSVPs, `manage_tickets` for tickets: `access_attendees`).
- A status button is the API's `POST /event-admin/{id}/status/{status}`: the permission of
  `event_service.required_permission`, then `event_service.change_status`; only the
  transitions allowed from the current status (`event_service.TRANSITIONS`) and permitted
  to the viewer are shown.
- "Check in" is the API's check-in (`check_in_attendees`): `ticket_admin_service.check_in`
  for a ticket row, `admin_rsvp_service.check_in_rsvp` for a YES RSVP row.
"Cancel event" asks first (`web.views.confirm`): the confirmation names how many people
are told, and offers an optional "Message to attendees" that goes out with the notice.
A refusal (400 / 409) re-renders the overview with the message next to its button.
"""

import csv
import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext, pgettext_lazy
from django.views.decorators.http import require_GET, require_POST

from common.errors import EncoreError, InvalidInput
from events.core.eligibility.capacity import SeatState
from events.core.selectors import manage as manage_selectors
from events.core.selectors.access import access_event_admin
from events.core.selectors.cancellation import cancellation_audience
from events.core.services import admin_rsvp_service, event_service
from events.models import Event, StaffPermission
from events.ticketing.services import ticket_admin as ticket_admin_service
from web.views.access import event_zone, signed_in
from web.views.confirm import MESSAGE, confirm_first
from web.views.manage import is_refusal

#: The status buttons of docs/spec/ui.md, in the order shown: (target status, button name).
BUTTONS = (
    (Event.Status.OPEN, pgettext_lazy("event action", "Open")),
    (Event.Status.CLOSED, gettext_lazy("Close")),
    (Event.Status.CANCELLED, gettext_lazy("Cancel event")),
)
#: A check-in refusal in the viewer's language, by the service's code (else its detail).
CHECK_IN_REFUSALS = {
    "already_checked_in": gettext_lazy("This attendee is already checked in."),
    "not_attending": gettext_lazy("Only someone who answered yes can be checked in."),
    "outside_check_in_window": gettext_lazy("Check-in is not open for this event right now."),
    "payment_pending": gettext_lazy("The ticket's payment has not been confirmed yet."),
    "ticket_cancelled": gettext_lazy("This ticket is cancelled."),
}
#: The two kinds of attendee row ("Check in" calls a different service for each).
TICKET, RSVP = "ticket", "rsvp"
CSV_HEADER = (
    "name",
    "email",
    "type",
    "ticket_type",
    "status",
    "checked_in_at",
    "payment_status",
    "payment_amount",
    "payment_currency",
    "payment_disputed",
)


def status_label(status: str) -> str:
    labels: dict[str, str] = {
        Event.Status.DRAFT: pgettext("event status", "Draft"),
        Event.Status.OPEN: pgettext("event status", "Open"),
        Event.Status.CLOSED: pgettext("event status", "Closed"),
        Event.Status.CANCELLED: pgettext("event status", "Cancelled"),
    }
    return labels.get(status, status)


@require_GET
@signed_in
def event_overview(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    event = manage_selectors.access_attendees(request.user, event_id)
    return _overview(request, event)


@require_POST
@signed_in
def change_status(request: HttpRequest, event_id: uuid.UUID, status: str) -> HttpResponse:
    if status not in event_service.TRANSITIONS:
        error = InvalidInput({"status": [f"Unknown status '{status}'."]})
        event = manage_selectors.access_attendees(request.user, event_id)
        message = str(error.extra["errors"]["status"][0])
        return _overview(request, event, status_refusal=message, status=400)
    event = access_event_admin(request.user, event_id, event_service.required_permission(status))
    message = ""
    if status == Event.Status.CANCELLED and _may_move(event, status):
        asked = confirm_first(
            request,
            action=gettext("Cancel event"),
            consequence=cancellation_consequence(event),
            yes_label=gettext("Yes, cancel the event"),
            keep_url=f"/manage/events/{event_id}",
            message_field=True,
        )
        if asked is not None:
            return asked
        message = request.POST.get(MESSAGE, "")
    try:
        event_service.change_status(event, status, message=message)
    except EncoreError as error:
        if not is_refusal(error):
            raise
        event = manage_selectors.access_attendees(request.user, event_id)
        return _overview(request, event, status_refusal=str(error.detail), status=error.status_code)
    return redirect(f"/manage/events/{event_id}")


def _may_move(event: Event, status: str) -> bool:
    """Whether asking makes sense: a refused move is refused at once, without a question."""
    return not event.is_template and status in event_service.TRANSITIONS[event.status]


def cancellation_consequence(event: Event) -> str:
    """Who hears of the cancellation, and who does not, in the words of the confirmation."""
    audience = cancellation_audience(event)
    if audience.told:
        sentences = [
            ngettext(
                "%(count)d attendee will be told.",
                "%(count)d attendees will be told.",
                audience.told,
            )
            % {"count": audience.told}
        ]
    else:
        sentences = [gettext("Nobody has registered, so nobody will be told.")]
    if audience.ticket_holders:
        sentences.append(
            ngettext(
                "%(count)d of them holds tickets, which stay as they are until you refund them.",
                "%(count)d of them hold tickets, which stay as they are until you refund them.",
                audience.ticket_holders,
            )
            % {"count": audience.ticket_holders}
        )
    if audience.waiting:
        sentences.append(
            ngettext(
                "%(count)d person on the waitlist keeps their place and is not told.",
                "%(count)d people on the waitlist keep their place and are not told.",
                audience.waiting,
            )
            % {"count": audience.waiting}
        )
    return " ".join(sentences)


@require_POST
@signed_in
def check_in(request: HttpRequest, event_id: uuid.UUID, ticket_id: uuid.UUID) -> HttpResponse:
    return _check_in(request, event_id, ticket_id, TICKET)


@require_POST
@signed_in
def check_in_rsvp(request: HttpRequest, event_id: uuid.UUID, rsvp_id: uuid.UUID) -> HttpResponse:
    return _check_in(request, event_id, rsvp_id, RSVP)


def _check_in(
    request: HttpRequest, event_id: uuid.UUID, row_id: uuid.UUID, kind: str
) -> HttpResponse:
    """Check a ticket or an RSVP in; a refusal is shown in the attendee's row."""
    event = access_event_admin(request.user, event_id, StaffPermission.CHECK_IN_ATTENDEES)
    refusal: dict[str, Any] | None = None
    try:
        if kind == TICKET:
            ticket_admin_service.check_in(event, row_id)
        else:
            admin_rsvp_service.check_in_rsvp(request.user, event, row_id)  # type: ignore[arg-type]
    except EncoreError as error:
        if not is_refusal(error):
            raise
        message = CHECK_IN_REFUSALS.get(error.code, error.detail)
        refusal = {"id": row_id, "message": str(message)}
        if not _from_htmx(request):
            event = manage_selectors.access_attendees(request.user, event_id)
            return _overview(request, event, check_in_refusal=refusal, status=error.status_code)
    if _from_htmx(request):
        return _check_in_answer(request, event, row_id, kind, refusal)
    return redirect(f"/manage/events/{event_id}#attendees")


def _page_number(request: HttpRequest) -> int:
    try:
        return int(request.GET.get("page", "1"))
    except ValueError:
        return 1


def _from_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def _check_in_answer(
    request: HttpRequest,
    event: Event,
    row_id: uuid.UUID,
    kind: str,
    refusal: dict[str, Any] | None,
) -> HttpResponse:
    """htmx: just the attendee's row (and the announcement), a refusal in it. The answer
    is a 200 either way, since htmx swaps only 2xx answers; nothing was written on a
    refusal."""
    context = {
        "event": event,
        "person": (
            manage_selectors.ticket_attendee(event, row_id)
            if kind == TICKET
            else manage_selectors.rsvp_attendee(event, row_id)
        ),
        "may_check_in": True,
        "check_in_refusal": refusal,
        "zone": event_zone(event),
    }
    return render(request, "web/manage/_check_in_answer.html", context)


@require_GET
@signed_in
def attendees_csv(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    event = manage_selectors.access_attendees(request.user, event_id)
    writer = csv.writer(_Echo())

    def rows() -> Any:
        yield writer.writerow(CSV_HEADER)
        for person in manage_selectors.iter_attendees(event):
            checked_in = person.checked_in_at.isoformat() if person.checked_in_at else ""
            yield writer.writerow(
                (
                    _safe(person.name),
                    _safe(person.email),
                    person.kind,
                    _safe(person.detail),
                    person.status,
                    checked_in,
                    person.payment_status,
                    person.payment_amount,
                    person.payment_currency,
                    "yes" if person.disputed else "",
                )
            )

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="attendees-{event.slug}.csv"'
    return response  # type: ignore[return-value]


class _Echo:
    """A file-like `csv.writer` target that hands each line back instead of storing it."""

    def write(self, value: str) -> str:
        return value


def _safe(value: str) -> str:
    """No spreadsheet formula injection: a cell starting with = + - @ is quoted as text."""
    return f"'{value}" if value[:1] in ("=", "+", "-", "@") else value


def _overview(
    request: HttpRequest,
    event: Event,
    *,
    status_refusal: str = "",
    check_in_refusal: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    permissions = manage_selectors.permissions_of(request.user, event.organization)
    figures = manage_selectors.event_figures(event)
    seats = SeatState(
        effective_capacity=event.effective_capacity,
        attendee_count=figures.taken,
        held=figures.held,
    )
    allowed = event_service.TRANSITIONS.get(event.status, frozenset())
    buttons = [
        {"status": target, "label": label}
        for target, label in BUTTONS
        if not event.is_template
        and target in allowed
        and event_service.required_permission(target) in permissions
    ]
    attendees = manage_selectors.attendee_page(event, _page_number(request))
    context = {
        "event": event,
        "status_label": status_label(event.status),
        "buttons": buttons,
        "seats": seats,
        "figures": figures,
        "attendees": attendees,
        "may_check_in": StaffPermission.CHECK_IN_ATTENDEES in permissions,
        "may_edit": StaffPermission.EDIT_EVENT in permissions,
        "status_refusal": status_refusal,
        "check_in_refusal": check_in_refusal,
        # A refused attendee not in this page's rows (another page, no longer a YES):
        # the message goes above the table instead.
        "check_in_refusal_elsewhere": check_in_refusal is not None
        and all(row.id != check_in_refusal["id"] for row in attendees.rows),
        "zone": event_zone(event),
    }
    return render(request, "web/manage/overview.html", context, status=status)
