"""`/manage/{org_slug}/series/new`: the series builder, and its "Next dates" preview.

Creating is `POST /api/organization-admin/{slug}/create-recurring-event`'s service,
`recurrence_service.create_recurring_event_series`, behind the same permission
(`create_event`). The preview expands the unsaved rule with the generator's own code
(`next_dates` → `RecurrenceRule.get_occurrences`); htmx posts the form to the preview
route as it changes, and with JavaScript off the "Preview" button re-renders the page.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext

from common.errors import Conflict, InvalidInput
from events.core.selectors.access import access_organization_admin
from events.models import StaffPermission
from events.series import services as recurrence_service
from web.forms.series import RuleForm, SeriesBuilderForm
from web.middleware import writes_nothing
from web.views.access import signed_in, viewer_zone
from web.views.series.errors import add_service_errors
from web.views.series.next_dates import next_dates

CREATE = StaffPermission.CREATE_EVENT


def preview_context(form: RuleForm) -> dict[str, object]:
    """The "Next dates" of a bound form (none while the rule is incomplete)."""
    if form.is_bound:
        form.is_valid()  # runs clean(), which sets `form.rule` when the rule is complete
    rule = form.rule
    if rule is None:
        return {"dates": [], "preview_zone": "UTC"}
    return {"dates": next_dates(rule, timezone.now()), "preview_zone": rule.timezone}


def _builder(request: HttpRequest) -> tuple[SeriesBuilderForm, SeriesBuilderForm]:
    """The form shown, and the form previewed: on a first visit the defaults, unbound
    (no errors shown), previewed as if submitted."""
    zone = viewer_zone(request)
    today = timezone.localdate()
    if request.method == "POST":
        form = SeriesBuilderForm(request.POST, zone=zone, today=today)
        return form, form
    unbound = SeriesBuilderForm(zone=zone, today=today)
    return unbound, SeriesBuilderForm(initial_data(unbound), zone=zone, today=today)


def initial_data(form: SeriesBuilderForm) -> dict[str, object]:
    """The builder's defaults as submitted data, so the first page shows a preview."""
    data: dict[str, object] = {}
    for name, field in form.fields.items():
        value = form.get_initial_for_field(field, name)
        if value not in (None, "", False):
            data[name] = value
    return data


@signed_in
def new_series(request: HttpRequest, org_slug: str) -> HttpResponse:
    organization = access_organization_admin(request.user, org_slug, CREATE)
    form, previewed = _builder(request)
    status = 200
    if request.method == "POST" and "preview" not in request.POST:
        if form.is_valid():
            try:
                series = recurrence_service.create_recurring_event_series(
                    organization,
                    form.template_fields(),
                    form.cleaned_data["name"],
                    form.rule_fields(),
                    auto_publish=form.cleaned_data["auto_publish"],
                    generation_window_weeks=form.cleaned_data["weeks_ahead"],
                )
            except (InvalidInput, ValidationError, Conflict) as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, gettext("The series was created."))
                return redirect(f"/manage/series/{series.pk}")
        status = 400
    context = {
        "organization": organization,
        "form": form,
        "preview_url": f"/manage/{organization.slug}/series/new/preview",
        **preview_context(previewed),
    }
    return render(request, "web/series/builder.html", context, status=status)


@writes_nothing
@signed_in
def preview_new_series(request: HttpRequest, org_slug: str) -> HttpResponse:
    """The "Next dates" list alone, for htmx to swap in (POST: the builder's fields)."""
    access_organization_admin(request.user, org_slug, CREATE)
    _, previewed = _builder(request)
    return render(request, "web/series/_next_dates.html", preview_context(previewed))
