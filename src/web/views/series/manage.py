"""`/manage/series/{series_id}`: the organiser's series page and its actions.

Each action is the admin API route's service call behind the same permission
(`edit_event_series`, via `access_series_by_id` = `access_series_admin` with the
series' own organisation): generate, cancel one date, cancel the stale dates, pause,
resume, publish the drafts. A refusal (409/400 of the service) re-renders the page
with the reason next to the action, with the service's status, and changes nothing; a
success redirects back (POST → redirect → GET) with a message. Dates read in the
series' own zone (`series_zone`).
"""

import uuid
from collections.abc import Callable
from datetime import datetime

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from common.errors import Conflict, EncoreError, InvalidInput
from common.human_time import format_human
from common.timezones import get_zone, is_valid_timezone
from events.models import EventSeries, StaffPermission
from events.series import services as recurrence_service
from events.series.errors import NotAnOccurrence
from events.series.selectors.series_pages import (
    access_series_by_id,
    occurrence_at,
    series_occurrences,
)
from web.views.access import signed_in
from web.views.confirm import confirm_first
from web.views.series.rows import occurrence_rows
from web.views.series.rule_words import describe_rule

EDIT = StaffPermission.EDIT_EVENT_SERIES
REFUSALS = (Conflict, InvalidInput, NotAnOccurrence)
Action = Callable[[HttpRequest, EventSeries], str]


def series_url(series: EventSeries) -> str:
    return f"/manage/series/{series.pk}"


def series_zone(series: EventSeries) -> str:
    """Organiser pages show a series' dates in the series' own zone (with its
    abbreviation), whoever reads them: the dates are planned in that zone."""
    rule = series.recurrence_rule
    return rule.timezone if rule is not None and is_valid_timezone(rule.timezone) else "UTC"


def page_context(
    request: HttpRequest, series: EventSeries, refused: tuple[str, str] = ("", "")
) -> dict[str, object]:
    """Occurrences (upcoming first, then the past, latest first) and the drift, in a
    fixed number of queries. `refused`: a date whose cancellation was refused, and why."""
    rule = series.recurrence_rule
    zone = series_zone(series)
    timezone.activate(get_zone(zone))
    now = timezone.now()
    occurrences = series_occurrences(series)
    drifted = set(recurrence_service.detect_cadence_drift(series)) if rule else set()
    upcoming = [event for event in occurrences if event.start >= now]
    past = [event for event in reversed(occurrences) if event.start < now]
    rows = occurrence_rows(upcoming, zone, refused)
    unlisted = refused[1] if refused[1] and not any(row["refusal"] for row in rows) else ""
    return {
        "series": series,
        "rule_words": describe_rule(rule) if rule is not None else "",
        "rule_zone": rule.timezone if rule is not None else "",
        "upcoming": rows,
        "past": occurrence_rows(past, zone),
        "stale": occurrence_rows([event for event in upcoming if event.pk in drifted], zone),
        "zone": zone,
        "refusals": {"cancel_date_unlisted": unlisted} if unlisted else {},
    }


def reason_of(exc: EncoreError) -> str:
    """The refusal in words: a field error's own message when the service gave one."""
    errors = exc.extra.get("errors")
    if isinstance(errors, dict):
        for messages_of_field in errors.values():
            if messages_of_field:
                return gettext(str(messages_of_field[0]))
    return gettext(exc.detail)


@signed_in
def series_admin(request: HttpRequest, series_id: uuid.UUID) -> HttpResponse:
    series = access_series_by_id(request.user, series_id, EDIT)
    return render(request, "web/series/manage.html", page_context(request, series))


def _generate(request: HttpRequest, series: EventSeries) -> str:
    created = recurrence_service.generate_series_events(series)
    if not created and not series.is_active:
        return gettext("The series is paused: no dates were created.")
    return ngettext("%(count)d date created.", "%(count)d dates created.", len(created)) % {
        "count": len(created)
    }


def _moment(request: HttpRequest) -> datetime:
    try:
        return datetime.fromisoformat(request.POST.get("occurrence_date", ""))
    except ValueError as exc:
        raise InvalidInput({"occurrence_date": [gettext("Not a date and time.")]}) from exc


def _cancel_date(request: HttpRequest, series: EventSeries) -> str:
    recurrence_service.cancel_occurrence(series, _moment(request))
    return gettext("The date was cancelled.")


def _ask_before_cancelling_a_date(request: HttpRequest, series: EventSeries) -> HttpResponse | None:
    """ "Cancel this date" asks first, naming the date and how many people are told."""
    moment = _moment(request)
    if timezone.is_naive(moment):
        return None  # the service refuses it with its reason; there is nothing to ask
    event = occurrence_at(series, moment)
    attendees = event.attendee_count if event is not None else 0
    told = (
        ngettext("%(count)d attendee will be told.", "%(count)d attendees will be told.", attendees)
        % {"count": attendees}
        if attendees
        else gettext("Nobody has signed up for it yet.")
    )
    when = format_human(moment, series_zone(series))
    consequence = gettext("The date %(when)s is cancelled for good.") % {"when": when}
    return confirm_first(
        request,
        action=gettext("Cancel this date"),
        consequence=f"{consequence} {told}",
        keep_url=series_url(series),
    )


def _cancel_stale(request: HttpRequest, series: EventSeries) -> str:
    cancelled = recurrence_service.cancel_stale_occurrences(series)
    return ngettext(
        "%(count)d stale date cancelled.", "%(count)d stale dates cancelled.", len(cancelled)
    ) % {"count": len(cancelled)}


def _publish_drafts(request: HttpRequest, series: EventSeries) -> str:
    published = recurrence_service.publish_drafts(series)
    return ngettext(
        "%(count)d draft date published.", "%(count)d draft dates published.", len(published)
    ) % {"count": len(published)}


def _pause(request: HttpRequest, series: EventSeries) -> str:
    recurrence_service.pause_series(series)
    return gettext("The series is paused.")


def _resume(request: HttpRequest, series: EventSeries) -> str:
    recurrence_service.resume_series(series)
    return gettext("The series is running again.")


def series_action(name: str, action: Action) -> Callable[..., HttpResponse]:
    @signed_in
    @require_POST
    def view(request: HttpRequest, series_id: uuid.UUID) -> HttpResponse:
        series = access_series_by_id(request.user, series_id, EDIT)
        try:
            ask = ASK_FIRST.get(name)
            asked = ask(request, series) if ask is not None else None
            if asked is not None:
                return asked
            done = action(request, series)
        except REFUSALS as exc:
            reason = reason_of(exc)
            fresh = access_series_by_id(request.user, series_id, EDIT)
            if name == "cancel-date":  # shown in the date's row (or above the dates)
                refused = (request.POST.get("occurrence_date", ""), reason)
                context = page_context(request, fresh, refused)
            else:  # shown next to the button pressed
                context = page_context(request, fresh)
                context["refusals"] = {name.replace("-", "_"): reason}
            return render(request, "web/series/manage.html", context, status=exc.status_code)
        messages.success(request, done)
        return redirect(series_url(series))

    view.__name__ = f"series_{name.replace('-', '_')}"
    return view


ACTIONS: dict[str, Action] = {
    "generate": _generate,
    "cancel-date": _cancel_date,
    "cancel-stale": _cancel_stale,
    "publish-drafts": _publish_drafts,
    "pause": _pause,
    "resume": _resume,
}
#: Actions that ask first (`web.views.confirm`): the confirmation, or None once confirmed.
ASK_FIRST: dict[str, Callable[[HttpRequest, EventSeries], HttpResponse | None]] = {
    "cancel-date": _ask_before_cancelling_a_date,
}
