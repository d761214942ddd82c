"""`/manage/events/{event_id}/waitlist`: the organiser's waitlist page (docs/spec/ui.md).

The same doors as the admin API: the page (queue and offers lists) needs
`invite_to_event`, like `GET .../waitlist` and `GET .../waitlist-offers`; the settings
form and sentence need `manage_event`, like `GET/PATCH .../waitlist-settings`, and are
left out for staff without it. Saving goes through `WaitlistSettingsSchema` and
`waitlist_settings_service.update_waitlist_settings`, the PATCH's schema and service.
"""

import uuid
from typing import Any

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.html import format_html
from django.views.decorators.http import require_http_methods
from pydantic import ValidationError as SchemaError

from events.core.selectors.access import access_event_admin, has_org_permission
from events.models import Event, StaffPermission
from events.waitlist.schemas.settings_and_offers import WaitlistSettingsSchema
from events.waitlist.selectors.stats import waitlist_stats
from events.waitlist.services import settings as waitlist_settings_service
from web.forms.waitlist import WaitlistSettingsForm
from web.views.access import event_zone, signed_in
from web.views.waitlist import rows
from web.views.waitlist.chart import stats_view
from web.views.waitlist.summary import WaitlistSettings, describe_settings

VIEW_PERMISSION = StaffPermission.INVITE_TO_EVENT
MANAGE_PERMISSION = StaffPermission.MANAGE_EVENT


def page_url(event_id: uuid.UUID, queue_page: str = "1", offers_page: str = "1") -> str:
    query = [
        f"{name}={value}"
        for name, value in (("queue_page", queue_page), ("offers_page", offers_page))
        if value != "1"
    ]
    return f"/manage/events/{event_id}/waitlist" + (f"?{'&'.join(query)}" if query else "")


@signed_in
@require_http_methods(["GET", "POST"])
def waitlist_page(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    if request.method == "POST":
        return save_settings(request, event_id)
    event = access_event_admin(request.user, event_id, VIEW_PERMISSION)
    return render_page(request, event)


def save_settings(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    """The PATCH's schema, then its service; errors next to their field, nothing saved."""
    event = access_event_admin(request.user, event_id, MANAGE_PERMISSION)
    zone = event_zone(event)
    form = WaitlistSettingsForm(request.POST, zone=zone, saved_cutoff=event.waitlist_cutoff_date)
    if form.is_valid():
        try:
            payload = WaitlistSettingsSchema.model_validate(form.api_data())
            waitlist_settings_service.update_waitlist_settings(event.pk, payload.service_data())
        except SchemaError as error:
            form.add_api_errors(_schema_errors(error))
        except ValidationError as error:
            form.add_api_errors(error.message_dict)
        else:
            return redirect(page_url(event.pk) + "?saved=1")
    return render_page(request, event, form=form, status=400)


def render_page(
    request: HttpRequest,
    event: Event,
    *,
    form: WaitlistSettingsForm | None = None,
    refusal: rows.Refusal | None = None,
    status: int = 200,
) -> HttpResponse:
    now = timezone.now()
    zone = event_zone(event)
    may_manage = has_org_permission(request.user, event.organization, MANAGE_PERMISSION)
    settings = WaitlistSettings.of(event)
    queue, queue_rows = rows.queue_page(
        event, rows.page_number(request, "queue_page"), now, refusal
    )
    offers, offer_rows = rows.offers_page(
        event, rows.page_number(request, "offers_page"), refusal, now
    )
    context: dict[str, Any] = {
        "event": event,
        "zone": zone,
        "may_manage": may_manage,
        "form": form or WaitlistSettingsForm.for_settings(settings, zone),
        "summary": describe_settings(settings, start=event.start, now=now, zone=zone),
        "saved": request.GET.get("saved") == "1" and form is None,
        "queue": queue,
        "queue_rows": queue_rows,
        "offers": offers,
        "offer_rows": offer_rows,
        "refusal": refusal,
        "stats": stats_view(waitlist_stats(event.pk), zone),
        "queue_refusal_elsewhere": _elsewhere(refusal, "entry", queue_rows),
        "offers_refusal_elsewhere": _elsewhere(refusal, "offer", offer_rows),
        "pages": {
            "queue_page": str(queue.number),
            "offers_page": str(offers.number),
        },
        "passive": event.waitlist_time_window is None,
        "base": page_url(event.pk),
        "page_fields": format_html(
            '<input type="hidden" name="queue_page" value="{}">'
            '<input type="hidden" name="offers_page" value="{}">',
            queue.number,
            offers.number,
        ),
    }
    return render(request, "web/waitlist/page.html", context, status=status)


def _elsewhere(refusal: rows.Refusal | None, kind: str, shown: list[Any]) -> bool:
    """A refusal about a row this page of the table does not show (shown above it)."""
    if refusal is None or not refusal.target.startswith(f"{kind}:"):
        return False
    return not any(row.refusal for row in shown)


def _schema_errors(error: SchemaError) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in error.errors():
        field = ".".join(str(part) for part in item.get("loc", ())) or "__all__"
        out.setdefault(field, []).append(str(item.get("msg", "invalid")))
    return out
