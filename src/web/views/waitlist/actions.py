"""The buttons of the waitlist page's rows, each the admin API route's service call.

| button | API route | permission | service |
|---|---|---|---|
| "Offer a seat" | POST .../waitlist-offers | manage_event | `create_admin_offer` |
| "Remove" | DELETE .../waitlist/{entry_id} | invite_to_event | `remove_entry` |
| "Revoke" | POST .../waitlist-offers/{id}/revoke | manage_event | `revoke_offer` |
| "Reactivate" | POST .../waitlist-offers/{id}/reactivate | manage_event | `reactivate_admin_offer` |

"Remove" and "Revoke" ask first (`confirm_first`): the first POST only names the person
and what they lose; the second, with `confirmed=yes`, acts.
Done → back to the page (POST, redirect, GET; the table pages kept). Refused (409 no
free seat, 400 a deadline the event cannot take, 404 a row gone meanwhile) → the page
again with the refusal in the row it was asked from, status as the API's, nothing
changed (the services write nothing when they refuse).
"""

import uuid
import zoneinfo
from collections.abc import Callable
from datetime import datetime

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from common.errors import EncoreError, InvalidInput, NotFound
from events.core.selectors import event_admin as admin_selectors
from events.core.selectors.access import access_event_admin
from events.models import Event, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.selectors import offers as offer_selectors
from web.views.access import event_zone, signed_in
from web.views.confirm import confirm_first
from web.views.waitlist import rows
from web.views.waitlist.page import MANAGE_PERMISSION, VIEW_PERMISSION, page_url, render_page


def _act(
    request: HttpRequest,
    event: Event,
    target: str,
    action: Callable[[], object],
) -> HttpResponse:
    try:
        action()
    except (NotFound, InvalidInput) as error:
        return _refused(request, event, target, error)
    except EncoreError as error:
        if error.status_code != 409:
            raise
        return _refused(request, event, target, error)
    return redirect(
        page_url(
            event.pk,
            rows.page_number(request, "queue_page"),
            rows.page_number(request, "offers_page"),
        )
    )


def _refused(request: HttpRequest, event: Event, target: str, error: EncoreError) -> HttpResponse:
    """The service's own words, in the viewer's language (`web.translations_extra`)."""
    message = gettext(str(error.detail))
    errors = error.extra.get("errors") if isinstance(error, InvalidInput) else None
    if errors:
        message = " ".join(str(m) for messages in errors.values() for m in messages)
    refusal = rows.Refusal(target, message)
    return render_page(request, event, refusal=refusal, status=error.status_code)


@signed_in
@require_POST
def offer_seat(request: HttpRequest, event_id: uuid.UUID, entry_id: uuid.UUID) -> HttpResponse:
    event = access_event_admin(request.user, event_id, MANAGE_PERMISSION)
    expires_at = _deadline(request, event)
    return _act(
        request,
        event,
        f"entry:{entry_id}",
        lambda: waitlist_service.create_admin_offer(event.pk, entry_id, expires_at),
    )


def _ask_first(
    request: HttpRequest, event: Event, action: str, consequence: str, email: str
) -> HttpResponse | None:
    """The confirmation naming the person, "Keep it" back to the page the rows were on."""
    keep_url = page_url(
        event.pk, rows.page_number(request, "queue_page"), rows.page_number(request, "offers_page")
    )
    return confirm_first(
        request, action=action, consequence=consequence % {"email": email}, keep_url=keep_url
    )


@signed_in
@require_POST
def remove_entry(request: HttpRequest, event_id: uuid.UUID, entry_id: uuid.UUID) -> HttpResponse:
    event = access_event_admin(request.user, event_id, VIEW_PERMISSION)
    try:
        entry = admin_selectors.get_waitlist_entry(event, entry_id)
    except NotFound:
        entry = None  # gone meanwhile: the service's refusal says so in the row
    if entry is not None:
        asked = _ask_first(
            request,
            event,
            gettext("Remove"),
            gettext("%(email)s leaves the queue and loses any seat held for them."),
            entry.user.email,
        )
        if asked is not None:
            return asked
    return _act(
        request,
        event,
        f"entry:{entry_id}",
        lambda: waitlist_service.remove_entry(admin_selectors.get_waitlist_entry(event, entry_id)),
    )


@signed_in
@require_POST
def revoke_offer(request: HttpRequest, event_id: uuid.UUID, offer_id: uuid.UUID) -> HttpResponse:
    event = access_event_admin(request.user, event_id, MANAGE_PERMISSION)
    pending = (
        offer_selectors.admin_offers(event.pk, WaitlistOffer.WaitlistOfferStatus.PENDING)
        .filter(pk=offer_id)
        .first()
    )
    if pending is not None:  # else the service's 404 is shown in the row
        asked = _ask_first(
            request,
            event,
            gettext("Revoke"),
            gettext("%(email)s loses the held seat and is told."),
            pending.user.email,
        )
        if asked is not None:
            return asked
    return _act(
        request,
        event,
        f"offer:{offer_id}",
        lambda: waitlist_service.revoke_offer(event.pk, offer_id),
    )


@signed_in
@require_POST
def reactivate_offer(
    request: HttpRequest, event_id: uuid.UUID, offer_id: uuid.UUID
) -> HttpResponse:
    event = access_event_admin(request.user, event_id, MANAGE_PERMISSION)
    expires_at = _deadline(request, event)
    return _act(
        request,
        event,
        f"offer:{offer_id}",
        lambda: waitlist_service.reactivate_admin_offer(event.pk, offer_id, expires_at),
    )


def _deadline(request: HttpRequest, event: Event) -> datetime | None:
    """The optional "Offer until" of a passive waitlist (no window to default from), a
    local time in the page's zone; empty or unreadable = the API's default (and its 400)."""
    text = (request.POST.get("expires_at") or "").strip()
    try:
        moment = parse_datetime(text) if text else None
    except ValueError:  # a well-formed but impossible date
        moment = None
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zoneinfo.ZoneInfo(event_zone(event)))
    return moment
