"""The ticket type form ("New ticket type", "Edit") and "Delete".

The API's `POST`, `PATCH` and `DELETE /event-admin/{id}/ticket-tiers[/{tier_id}]`:
`manage_tickets`, then `tiers.create_tier`, `update_tier`, `delete_tier`. The model's
refusals (a price above 0 online, the sales window, fewer than sold, a name taken) land
next to their field; a tier with tickets is not deleted, and says why.
"""

import uuid

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_http_methods, require_POST

from events.models import Event, TicketTier
from events.ticketing.errors import TierHasTickets
from events.ticketing.selectors import back_office
from events.ticketing.services import tiers as tier_service
from web.forms.tickets import TierForm, add_tier_errors, tier_initial
from web.views.access import signed_in
from web.views.confirm import confirm_first
from web.views.tickets.page import Refusal, manage_tickets, online_ready, render_page, tickets_path


@require_http_methods(["GET", "POST"])
@signed_in
def new_tier(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    event = manage_tickets(request, event_id)
    form = TierForm(request.POST or None, event=event, online_ready=online_ready(event))
    if request.method == "POST" and form.is_valid():
        try:
            tier = tier_service.create_tier(event, form.service_data())
        except ValidationError as error:
            add_tier_errors(form, error)
        else:
            messages.success(request, gettext("Ticket type %(name)s added.") % {"name": tier.name})
            return redirect(tickets_path(event_id))
    return _form_page(request, event, form, None)


@require_http_methods(["GET", "POST"])
@signed_in
def edit_tier(request: HttpRequest, event_id: uuid.UUID, tier_id: uuid.UUID) -> HttpResponse:
    event = manage_tickets(request, event_id)
    tier = back_office.event_tier(event, tier_id)
    ready = online_ready(event)
    if request.method != "POST":
        initial = tier_initial(tier, event.timezone)
        form = TierForm(
            initial=initial, event=event, online_ready=ready, current_method=tier.payment_method
        )
        return _form_page(request, event, form, tier)
    form = TierForm(
        request.POST, event=event, online_ready=ready, current_method=tier.payment_method
    )
    if form.is_valid():
        try:
            tier = tier_service.update_tier(event, tier_id, form.service_data())
        except ValidationError as error:
            add_tier_errors(form, error)
        else:
            messages.success(request, gettext("Ticket type %(name)s saved.") % {"name": tier.name})
            return redirect(tickets_path(event_id))
    return _form_page(request, event, form, tier)


@require_POST
@signed_in
def delete_tier(request: HttpRequest, event_id: uuid.UUID, tier_id: uuid.UUID) -> HttpResponse:
    """Asks first, unless tickets exist: then the refusal comes at once, with the reason."""
    event = manage_tickets(request, event_id)
    tier = back_office.event_tier(event, tier_id)
    if not back_office.tier_has_tickets(tier):
        consequence = gettext(
            "The ticket type %(name)s will be deleted. Nobody holds a ticket of it."
        ) % {"name": tier.name}
        asking = confirm_first(
            request,
            action=gettext("Delete"),
            consequence=consequence,
            keep_url=tickets_path(event_id),
        )
        if asking is not None:
            return asking
    try:
        tier_service.delete_tier(event, tier_id)
    except TierHasTickets:
        refusal = Refusal(tier.pk, gettext(TIER_HAS_TICKETS))
        return render_page(request, event, tier_refusal=refusal, status=409)
    messages.success(request, gettext("Ticket type %(name)s deleted.") % {"name": tier.name})
    return redirect(tickets_path(event_id))


TIER_HAS_TICKETS = gettext_noop(
    "Tickets of this type were sold, so it cannot be deleted. To stop selling it, "
    "end its sales or set its quantity to the number sold."
)


def _form_page(
    request: HttpRequest, event: Event, form: TierForm, tier: TicketTier | None
) -> HttpResponse:
    status = 400 if form.is_bound else 200
    context = {"event": event, "form": form, "tier": tier}
    return render(request, "web/tickets/tier_form.html", context, status=status)
