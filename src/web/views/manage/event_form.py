"""The event form: `/manage/<org_slug>/events/new` and `/manage/events/<id>/edit`.

Create is the API's `create-event` (`create_event` permission, `event_service.create_event`,
a draft); edit is its PATCH (`edit_event`, `event_service.update_event`, which applies the
fields through `event_fields`). A refusal lands next to the field it names: a model
`ValidationError` or `InvalidInput` (400) by field, a switch between RSVPs and tickets
with people registered (409 `has_attendees`) under "Registration", nothing saved. The
cover image is checked with the form and set once the event is saved (ADR 0039).
"""

import uuid

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from common.errors import Conflict, InvalidInput
from events.core.errors import HasAttendees
from events.core.selectors.access import access_event_admin, access_organization_admin
from events.core.services import event_service, images
from events.models import Event, Organization, StaffPermission
from web.forms.manage import EventForm, add_service_errors, event_initial
from web.views.access import signed_in


@require_http_methods(["GET", "POST"])
@signed_in
def new_event(request: HttpRequest, org_slug: str) -> HttpResponse:
    organization = access_organization_admin(request.user, org_slug, StaffPermission.CREATE_EVENT)
    form = EventForm(request.POST or None, request.FILES or None, organization=organization)
    if request.method != "POST":
        return _form_page(request, form, organization, None)
    status = 400
    if form.is_valid():
        try:
            event = event_service.create_event(organization, form.service_data())
        except (ValidationError, InvalidInput) as error:
            add_service_errors(form, error)
        except Conflict as error:
            add_service_errors(form, error)
            status = 409
        else:
            _save_cover(form, event.pk)
            return redirect(f"/manage/events/{event.pk}")
    return _form_page(request, form, organization, None, status=status)


@require_http_methods(["GET", "POST"])
@signed_in
def edit_event(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    event = access_event_admin(request.user, event_id, StaffPermission.EDIT_EVENT)
    if event.is_template and event.event_series_id is not None:
        # A series template is edited through its series ("Edit template"), as the API's
        # event PATCH refuses its schedule fields: its dates belong to the rule.
        return redirect(f"/manage/series/{event.event_series_id}/template")
    organization = event.organization
    has_cover = event.cover_image_id is not None
    if request.method != "POST":
        form = EventForm(
            initial=event_initial(event),
            organization=organization,
            has_cover=has_cover,
            event=event,
        )
        return _form_page(request, form, organization, event)
    form = EventForm(
        request.POST, request.FILES, organization=organization, has_cover=has_cover, event=event
    )
    status = 400
    if form.is_valid():
        try:
            event_service.update_event(event, form.service_data())
        except (ValidationError, InvalidInput) as error:
            add_service_errors(form, error)
        except HasAttendees as error:
            form.add_error("registration", str(error.detail))
            status = 409
        except Conflict as error:
            add_service_errors(form, error)
            status = 409
        else:
            _save_cover(form, event.pk)
            return redirect(f"/manage/events/{event.pk}")
    return _form_page(request, form, organization, event, status=status)


def _save_cover(form: EventForm, event_id: uuid.UUID) -> None:
    changed, cover = form.cover_change()
    if changed:
        images.set_event_cover(event_id, cover=cover)


def _form_page(
    request: HttpRequest,
    form: EventForm,
    organization: Organization,
    event: Event | None,
    status: int = 200,
) -> HttpResponse:
    context = {"form": form, "organization": organization, "event": event}
    return render(request, "web/manage/event_form.html", context, status=status)
