"""`/manage/series/{id}/template` and `/manage/series/{id}/recurrence`: the two edits.

"Edit template" is `PATCH …/event-series/{id}/template?propagate=…`'s service
(`recurrence_service.update_template`). "Edit time and cadence" is `POST …/preview`
then `PATCH …/recurrence` (ADR 0024): the builder's rule fields, the time of day and the
dates' length, the same "Next dates" preview, then the plan of the change (dates
created, moved with their attendees, left off the cadence) before "Apply changes"
applies it. Both need `edit_event_series`. The rule's first date stays; a new time moves
it on the same day.
"""

import uuid
from datetime import timedelta

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext

from common.errors import Conflict, InvalidInput
from events.models import EventSeries
from events.series import services as recurrence_service
from events.series.selectors.series_pages import access_series_by_id
from web.forms.series import CadenceForm, TemplateForm, cadence_initial
from web.middleware import writes_nothing
from web.views.access import signed_in
from web.views.series.builder import preview_context
from web.views.series.errors import add_service_errors
from web.views.series.manage import EDIT, series_url, series_zone
from web.views.series.plan import planned_rows
from web.views.series.rule_words import describe_rule

SERVICE_REFUSALS = (InvalidInput, ValidationError, Conflict)


@signed_in
def edit_template(request: HttpRequest, series_id: uuid.UUID) -> HttpResponse:
    series = access_series_by_id(request.user, series_id, EDIT)
    template = recurrence_service.template_of(series)
    if request.method != "POST":
        initial = {"name": template.name, "description": template.description}
        form = TemplateForm(initial=initial)
    else:
        form = TemplateForm(request.POST)
        if form.is_valid():
            changes = {k: form.cleaned_data[k] for k in ("name", "description")}
            try:
                update = recurrence_service.update_template(
                    series, changes, form.cleaned_data["propagate"]
                )
            except SERVICE_REFUSALS as exc:
                add_service_errors(form, exc)
            else:
                count = len(update.propagated_event_ids)
                messages.success(request, _template_saved(count))
                return redirect(series_url(series))
    status = 400 if form.is_bound else 200
    context = {"series": series, "form": form}
    return render(request, "web/series/template.html", context, status=status)


def _template_saved(count: int) -> str:
    if not count:
        return gettext("The template was saved.")
    return ngettext(
        "The template was saved and %(count)d date was updated.",
        "The template was saved and %(count)d dates were updated.",
        count,
    ) % {"count": count}


def _cadence_form(request: HttpRequest, series: EventSeries) -> tuple[CadenceForm, CadenceForm]:
    """The form shown and the form previewed (on a first visit: the saved rule)."""
    rule = recurrence_service.rule_of(series)
    if request.method == "POST":
        form = CadenceForm(request.POST, rule=rule)
        return form, form
    template = recurrence_service.template_of(series)
    initial = cadence_initial(
        rule, series.auto_publish, series.generation_window_weeks, template.end - template.start
    )
    shown = CadenceForm(initial=initial, rule=rule)
    data = {k: v for k, v in initial.items() if v not in (None, "", False)}
    return shown, CadenceForm(data, rule=rule)


def series_change(form: CadenceForm, series: EventSeries) -> recurrence_service.SeriesChange:
    """The recurrence PATCH body the valid form describes; the length only when changed."""
    template = recurrence_service.template_of(series)
    minutes = timedelta(minutes=form.duration_minutes())
    return recurrence_service.SeriesChange(
        rule_changes=form.rule_changes(),
        duration=minutes if minutes != template.end - template.start else None,
        stale=form.cleaned_data["stale"],
        auto_publish=form.cleaned_data["auto_publish"],
        generation_window_weeks=form.cleaned_data["weeks_ahead"],
    )


@signed_in
def edit_cadence(request: HttpRequest, series_id: uuid.UUID) -> HttpResponse:
    """GET: the saved cadence. POST: the plan of the change (what `preview` answers), with
    "Apply changes"; POST with `apply`: the change (planned again under the lock)."""
    series = access_series_by_id(request.user, series_id, EDIT)
    form, previewed = _cadence_form(request, series)
    status, plan = 200, None
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                change = series_change(form, series)
                if "apply" in request.POST:
                    recurrence_service.apply_series_change(series, change)
                else:
                    plan = recurrence_service.preview_series_change(series, change)
            except SERVICE_REFUSALS as exc:
                add_service_errors(form, exc)
            else:
                if plan is None:
                    messages.success(request, gettext("The cadence was changed."))
                    return redirect(series_url(series))
                status = 200
    context = {
        "series": series,
        "form": form,
        "rule_words": describe_rule(recurrence_service.rule_of(series)),
        "preview_url": f"/manage/series/{series.pk}/recurrence/preview",
        "plan": planned_rows(plan, series_zone(series)) if plan is not None else None,
        "cancel_stale": form.is_bound and form.cleaned_data.get("stale") == "cancel",
        **preview_context(previewed),
    }
    return render(request, "web/series/cadence.html", context, status=status)


@writes_nothing
@signed_in
def preview_cadence(request: HttpRequest, series_id: uuid.UUID) -> HttpResponse:
    series = access_series_by_id(request.user, series_id, EDIT)
    _, previewed = _cadence_form(request, series)
    return render(request, "web/series/_next_dates.html", preview_context(previewed))
