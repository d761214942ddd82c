"""`GET /manage/events/{id}/waitlist/preview`: the settings sentence for the form's
unsaved values, which htmx swaps in as the form changes (an enhancement only: with
JavaScript off the page describes the saved settings, right after Save).

The values pass the same checks as Save (the form, `WaitlistSettingsSchema`, the
event's own `clean()` on an unsaved copy), and nothing is written.
"""

import uuid

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_GET
from pydantic import ValidationError as SchemaError

from events.core.selectors.access import access_event_admin
from events.waitlist.schemas.settings_and_offers import WaitlistSettingsSchema
from web.forms.waitlist import WaitlistSettingsForm
from web.views.access import event_zone, signed_in
from web.views.waitlist.page import MANAGE_PERMISSION
from web.views.waitlist.summary import WaitlistSettings, describe_settings


@signed_in
@require_GET
def settings_preview(request: HttpRequest, event_id: uuid.UUID) -> HttpResponse:
    event = access_event_admin(request.user, event_id, MANAGE_PERMISSION)
    zone = event_zone(event)
    form = WaitlistSettingsForm(request.GET, zone=zone, saved_cutoff=event.waitlist_cutoff_date)
    sentence = gettext("These settings cannot be saved as they are: see the form.")
    if form.is_valid():
        try:
            values = WaitlistSettingsSchema.model_validate(form.api_data()).service_data()
            for name, value in values.items():
                setattr(event, name, value)
            event.clean()
        except (SchemaError, ValidationError):
            pass
        else:
            sentence = describe_settings(
                WaitlistSettings.of(event), start=event.start, now=timezone.now(), zone=zone
            )
    return render(request, "web/waitlist/_summary.html", {"summary": sentence})
