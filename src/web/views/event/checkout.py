"""`/events/{event_id}/checkout`: a quantity per tier on sale and "Confirm".

The same service as `POST /api/events/{id}/checkout` (`payment_service.checkout`, all or
nothing), on the event from the same selector (`get_visible_event`'s visibility, with the
tiers prefetched). A cart with tiers paid online sends the buyer to Stripe's Checkout
page; Stripe sends them back to the event page (`?payment=done|cancelled`). A refusal (sold out, a limit, the gates) shows on the form and sells nothing;
after a sale the buyer is back on the event page. A held waitlist offer is claimed by the
checkout itself ("Claim my seat" on ticketed events leads here).
"""

import uuid

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from accounts.models import User
from common.errors import EncoreError
from events.core.selectors.event import get_public_event
from events.ticketing.services import payments as payment_service
from web.forms.event import CheckoutForm, field_name
from web.views.access import activate_viewer_zone, signed_in
from web.views.event.actions import NOT_A_REFUSAL, event_path
from web.views.event.situation import situation_for, tiers_on_sale


@require_http_methods(["GET", "POST"])
@signed_in
def checkout(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    event = get_public_event(user, event_id)
    if not event.requires_ticket:
        return redirect(event_path(event_id))
    tiers = tiers_on_sale(event, timezone.now())
    form = CheckoutForm(tiers, request.POST or None)
    status = 200
    message = ""
    if request.method == "POST" and form.is_valid():
        try:
            result = payment_service.checkout(event, user, form.cart())
        except NOT_A_REFUSAL:
            raise
        except EncoreError as refusal:
            message, status = gettext(refusal.detail), refusal.status_code
        else:
            if result.payment is not None:
                return redirect(result.payment.checkout_url)  # Stripe's page; card data stays there
            return redirect(event_path(event_id))
    elif request.method == "POST":
        status = 400
    rows = [(tier, form[field_name(tier)]) for tier in tiers]
    context = {
        "event": event,
        "offer": situation_for(user, event).offer,  # a held seat's deadline, if any
        "form": form,
        "rows": rows,
        "message": message,
        "zone": activate_viewer_zone(request, event.timezone or "UTC"),
    }
    response = render(request, "web/event/checkout.html", context, status=status)
    # "Confirm" may redirect to Stripe's Checkout page; a browser checks the form's
    # `form-action` against that redirect too, so the page names Stripe's origin.
    response._csp_update = {"form-action": [settings.STRIPE_CHECKOUT_ORIGIN]}  # type: ignore[attr-defined]
    return response
