"""`/manage/series/{id}/split`: "Split from here", this and following (ADR 0025).

`POST …/event-series/{id}/split`'s service (`recurrence_service.split_series`) behind
the same permission (`edit_event_series`). The form is the builder's rule fields with
the first date and time of the new series and its template's name and description,
with the same "Next dates" preview; `from` is the start of the chosen day, so that
day's occurrence moves to the new series whatever its time. The old series keeps the
dates before it; the page goes on to the new series.
"""

import uuid
from datetime import date, timedelta

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext

from common.timezones import get_zone
from events.models import EventSeries
from events.series import services as recurrence_service
from events.series.selectors.series_pages import access_series_by_id
from web.forms.series import SplitForm, split_initial
from web.middleware import writes_nothing
from web.views.access import signed_in
from web.views.series.builder import preview_context
from web.views.series.edit import SERVICE_REFUSALS
from web.views.series.errors import add_service_errors
from web.views.series.manage import EDIT, series_url


def _chosen_day(request: HttpRequest, zone: str) -> date:
    """The occurrence's day of the link ("Split from here"), else tomorrow."""
    try:
        return date.fromisoformat(request.GET.get("date", ""))
    except ValueError:
        return timezone.localdate(timezone=get_zone(zone)) + timedelta(days=1)


def _split_form(request: HttpRequest, series: EventSeries) -> tuple[SplitForm, SplitForm]:
    """The form shown and the form previewed (on a first visit: the rule from that day)."""
    rule = recurrence_service.rule_of(series)
    if request.method == "POST":
        form = SplitForm(request.POST, rule=rule)
        return form, form
    template = recurrence_service.template_of(series)
    day = _chosen_day(request, rule.timezone)
    initial = split_initial(rule, day, template.name, template.description)
    shown = SplitForm(initial=initial, rule=rule)
    data = {k: v for k, v in initial.items() if v not in (None, "", False)}
    return shown, SplitForm(data, rule=rule)


@signed_in
def split(request: HttpRequest, series_id: uuid.UUID) -> HttpResponse:
    series = access_series_by_id(request.user, series_id, EDIT)
    form, previewed = _split_form(request, series)
    status = 200
    if request.method == "POST" and "preview" not in request.POST:
        status = 400
        if form.is_valid():
            template = recurrence_service.template_of(series)
            try:
                result = recurrence_service.split_series(
                    series,
                    form.split_from(timezone.now()),
                    recurrence=form.rule_changes(),
                    template=form.template_changes(template.name, template.description),
                    stale=form.cleaned_data["stale"],
                )
            except SERVICE_REFUSALS as exc:
                add_service_errors(form, exc)
            else:
                messages.success(request, gettext("The series was split: this is the new one."))
                return redirect(series_url(result.new))
    context = {
        "series": series,
        "form": form,
        "preview_url": f"/manage/series/{series.pk}/split/preview",
        **preview_context(previewed),
    }
    return render(request, "web/series/split.html", context, status=status)


@writes_nothing
@signed_in
def preview_split(request: HttpRequest, series_id: uuid.UUID) -> HttpResponse:
    series = access_series_by_id(request.user, series_id, EDIT)
    _, previewed = _split_form(request, series)
    return render(request, "web/series/_next_dates.html", preview_context(previewed))
