"""`/events/{org_slug}/series/{series_slug}`: the public series page.

The selectors of `GET /api/events/{org_slug}/series/{series_slug}`: an invisible series
is the same 404, and the occurrences are those the viewer may see (cancelled ones stay
listed, marked). Only upcoming dates are listed; the "Subscribe" feed has them all. A
former slug of a renamed series answers 301 with the current one.
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone

from common.errors import NotFound
from events.series.selectors.series import visible_occurrences, visible_series_by_slug
from events.series.selectors.series_slugs import current_slug_of_former
from web.views.access import activate_viewer_zone
from web.views.series.rows import occurrence_rows
from web.views.series.rule_words import describe_rule


def series_page(request: HttpRequest, org_slug: str, series_slug: str) -> HttpResponse:
    try:
        series = visible_series_by_slug(request.user, org_slug, series_slug)
    except NotFound:
        moved = current_slug_of_former(request.user, org_slug, series_slug)
        if moved is None:
            raise
        return redirect(f"/events/{org_slug}/series/{moved}", permanent=True)
    rule = series.recurrence_rule
    zone = activate_viewer_zone(request, fallback=rule.timezone if rule else "UTC")
    upcoming = visible_occurrences(request.user, series).filter(start__gte=timezone.now())
    context = {
        "series": series,
        "rule_words": describe_rule(rule) if rule is not None else "",
        "rule_zone": rule.timezone if rule is not None else "",
        "occurrences": occurrence_rows(upcoming, zone),
        "zone": zone,
        "calendar_url": f"/api/event-series/{series.pk}/calendar.ics",
    }
    return render(request, "web/series/public.html", context)
