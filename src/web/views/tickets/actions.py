"""What staff do with one ticket, and the box office: the API's routes under
`/event-admin/{id}/tickets/{ticket_id}` and `/box-office/sell`, with their services.

- "Mark as paid": `ticket_admin.confirm_payment` (an offline ticket awaiting payment).
- "Cancel ticket": `cancellation.cancel_ticket_by_staff`; asks first.
- "Refund": a ticket paid online is refunded through Stripe
  (`payments.refund_by_organiser`, any part of what is left; the seat follows the
  money); any other paid ticket is refunded outside Encore and cancelled
  (`cancellation.refund_ticket_offline`), so only in full (docs/adr/0041). Asks first.
- "Sell at the door": `ticket_admin.sell_at_box_office` to the account of an e-mail.
"""

import uuid
from decimal import Decimal

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy, gettext_noop
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import User
from common.errors import EncoreError, InvalidInput
from events.models import Event
from events.ticketing.selectors import back_office
from events.ticketing.selectors.back_office import TicketRow
from events.ticketing.selectors.payment_due import payment_reference
from events.ticketing.services import cancellation as cancellation_service
from events.ticketing.services import payments as payment_service
from events.ticketing.services import ticket_admin as ticket_admin_service
from web.forms.tickets import BoxOfficeForm, RefundForm
from web.views.access import signed_in
from web.views.confirm import confirm_first
from web.views.manage import is_refusal
from web.views.tickets.page import Refusal, manage_tickets, render_page, tickets_path

#: A refusal in the organiser's words, by the service's code (else its own detail).
REFUSALS = {
    "not_pending": gettext_lazy("Only a ticket awaiting payment can be marked as paid."),
    "ticket_cancelled": gettext_lazy("This ticket is cancelled."),
    "already_cancelled": gettext_lazy("This ticket is already cancelled."),
    "nothing_to_refund": gettext_lazy(
        "This ticket's price is already refunded, or a refund is under way."
    ),
    "payment_pending": gettext_lazy("The ticket's payment has not been confirmed yet."),
    "payment_provider_unavailable": gettext_lazy(
        "The payment provider could not be reached; nothing was refunded. Try again later."
    ),
    "sold_out": gettext_lazy("No tickets of this type are left."),
    "ticket_limit_exceeded": gettext_lazy(
        "This would exceed the number of tickets one person may hold."
    ),
}
OFFLINE_IN_FULL = gettext_noop(
    "This ticket was paid outside Encore, so it is refunded in full: the ticket is "
    "cancelled and its seat freed. Give a part of the money back outside Encore instead."
)


def refusal_text(error: EncoreError) -> str:
    return str(REFUSALS.get(error.code, gettext(error.detail)))


def _query(request: HttpRequest) -> str:
    """The search the row's form was sent from, to come back to it."""
    return request.POST.get("q", "")


@require_POST
@signed_in
def mark_paid(request: HttpRequest, event_id: uuid.UUID, ticket_id: uuid.UUID) -> HttpResponse:
    event = manage_tickets(request, event_id)
    try:
        ticket_admin_service.confirm_payment(event, ticket_id)
    except EncoreError as error:
        return _refused(request, event, ticket_id, error)
    reference = payment_reference(ticket_id)
    messages.success(
        request, gettext("Ticket %(reference)s is paid and valid.") % {"reference": reference}
    )
    return redirect(tickets_path(event_id, _query(request)))


@require_POST
@signed_in
def cancel_ticket(request: HttpRequest, event_id: uuid.UUID, ticket_id: uuid.UUID) -> HttpResponse:
    event = manage_tickets(request, event_id)
    row = back_office.event_ticket(event, ticket_id)
    if row.may_cancel:
        asking = confirm_first(
            request,
            action=gettext("Cancel ticket"),
            consequence=_cancel_consequence(row),
            keep_url=tickets_path(event_id, _query(request)),
        )
        if asking is not None:
            return asking
    try:
        cancellation_service.cancel_ticket_by_staff(event, ticket_id)
    except EncoreError as error:
        return _refused(request, event, ticket_id, error)
    messages.success(
        request, gettext("The ticket of %(holder)s is cancelled.") % {"holder": row.holder}
    )
    return redirect(tickets_path(event_id, _query(request)))


def _cancel_consequence(row: TicketRow) -> str:
    said = gettext(
        "The %(type)s ticket of %(who)s will be cancelled and its seat freed; the holder "
        "will be told."
    ) % {"type": row.tier_name, "who": _who(row)}
    if row.refundable > 0:
        said += " " + gettext("No money is given back: use Refund for that.")
    return said


@require_http_methods(["GET", "POST"])
@signed_in
def refund(request: HttpRequest, event_id: uuid.UUID, ticket_id: uuid.UUID) -> HttpResponse:
    event = manage_tickets(request, event_id)
    row = back_office.event_ticket(event, ticket_id)
    if not row.may_refund:
        form = RefundForm()
        refusal = gettext("This ticket has nothing left to refund.")
        return _refund_page(request, event, row, form, 409, refusal=refusal)
    if request.method != "POST":
        return _refund_page(
            request, event, row, RefundForm(initial={"amount": row.refundable}), 200
        )
    form = RefundForm(request.POST)
    if not form.is_valid():
        return _refund_page(request, event, row, form, 400)
    amount: Decimal = form.cleaned_data["amount"]
    if not row.paid_online and amount != row.refundable:
        form.add_error("amount", gettext(OFFLINE_IN_FULL))
        return _refund_page(request, event, row, form, 400)
    asking = confirm_first(
        request,
        action=gettext("Refund"),
        consequence=_refund_consequence(row, amount),
        keep_url=f"/manage/events/{event_id}/tickets/{ticket_id}/refund",
    )
    if asking is not None:
        return asking
    return _do_refund(request, event, row, form, amount)


def _do_refund(
    request: HttpRequest, event: Event, row: TicketRow, form: RefundForm, amount: Decimal
) -> HttpResponse:
    staff: User = request.user  # type: ignore[assignment]
    try:
        if row.paid_online:
            payment_service.refund_by_organiser(event, row.id, staff, amount)
            done = gettext(
                "A refund of %(amount)s %(currency)s was asked of the payment provider; "
                "the page shows it as refunded once the provider confirms it."
            )
        else:
            cancellation_service.refund_ticket_offline(event, row.id)
            done = gettext("%(amount)s %(currency)s refunded; the ticket is cancelled.")
    except InvalidInput as error:
        for message in error.extra.get("errors", {}).get("amount", []):
            form.add_error("amount", str(message))
        return _refund_page(request, event, row, form, 400)
    except EncoreError as error:
        if error.status_code not in (409, 502):
            raise
        form.add_error(None, refusal_text(error))
        return _refund_page(request, event, row, form, error.status_code)
    messages.success(request, done % {"amount": amount, "currency": row.currency})
    return redirect(tickets_path(event.pk))


def _refund_consequence(row: TicketRow, amount: Decimal) -> str:
    values = {"amount": amount, "currency": row.currency, "who": _who(row)}
    if not row.paid_online:
        return (
            gettext(
                "The ticket of %(who)s will be cancelled as refunded and its seat "
                "freed. You give the %(amount)s %(currency)s back yourself."
            )
            % values
        )
    if amount < row.refundable:
        return (
            gettext(
                "%(amount)s %(currency)s will go back to %(who)s by card. The ticket stays valid."
            )
            % values
        )
    return (
        gettext(
            "%(amount)s %(currency)s will go back to %(who)s by card; the "
            "ticket is then cancelled and its seat freed."
        )
        % values
    )


def _who(row: TicketRow) -> str:
    """The holder as a confirmation names them: "Ada (ada@example.com)", or the e-mail."""
    return row.email if row.holder == row.email else f"{row.holder} ({row.email})"


def _refund_page(
    request: HttpRequest,
    event: Event,
    row: TicketRow,
    form: RefundForm,
    status: int,
    *,
    refusal: str = "",
) -> HttpResponse:
    context = {"event": event, "ticket": row, "form": form, "refusal": refusal}
    return render(request, "web/tickets/refund.html", context, status=status)


@require_http_methods(["GET", "POST"])
@signed_in
def sell(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    event = manage_tickets(request, event_id)
    tiers = back_office.event_tiers(event)
    form = BoxOfficeForm(request.POST or None, tiers=tiers)
    if request.method != "POST":
        return _sell_page(request, event, form, tiers, 200)
    if not form.is_valid():
        return _sell_page(request, event, form, tiers, 400)
    buyer = back_office.buyer_by_email(form.cleaned_data["email"])
    if buyer is None:
        form.add_error(
            "email", gettext("No account uses this e-mail address: the buyer signs up first.")
        )
        return _sell_page(request, event, form, tiers, 400)
    staff: User = request.user  # type: ignore[assignment]
    try:
        ticket = ticket_admin_service.sell_at_box_office(event, staff, buyer.pk, form.tier_id())
    except EncoreError as error:
        if not is_refusal(error):
            raise
        form.add_error(None, refusal_text(error))
        return _sell_page(request, event, form, tiers, error.status_code)
    values = {"type": ticket.tier.name, "email": buyer.email}
    messages.success(request, gettext("Sold a %(type)s ticket to %(email)s.") % values)
    return redirect(tickets_path(event_id))


def _sell_page(
    request: HttpRequest, event: Event, form: BoxOfficeForm, tiers: list, status: int
) -> HttpResponse:
    context = {"event": event, "form": form, "tiers": tiers}
    return render(request, "web/tickets/sell.html", context, status=status)


def _refused(
    request: HttpRequest, event: Event, ticket_id: uuid.UUID, error: EncoreError
) -> HttpResponse:
    """A 400 / 409 in the ticket's row of the page it came from; anything else is raised."""
    if not is_refusal(error):
        raise error
    refusal = Refusal(ticket_id, refusal_text(error))
    return render_page(
        request, event, query=_query(request), ticket_refusal=refusal, status=error.status_code
    )
