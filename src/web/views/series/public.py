"""`/events/{org_slug}/series/{series_slug}`: the public series page, and following it.

The selectors of `GET /api/events/{org_slug}/series/{series_slug}`: an invisible series
is the same 404, and the occurrences are those the viewer may see (cancelled ones stay
listed, marked). Only upcoming dates are listed; the "Subscribe" feed has them all. A
former slug of a renamed series answers 301 with the current one.

"Follow series" / "Unfollow series" are `POST/DELETE /api/event-series/{id}/follow`'s
`follow_service` calls: following needs a series the viewer may see; unfollowing works
even when it became invisible, as in the API.
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from common import links
from common.errors import NotFound
from events.core.services import follow_service
from events.models import EventSeries
from events.series.selectors.series import visible_occurrences, visible_series_by_slug
from events.series.selectors.series_pages import follows_series
from events.series.selectors.series_slugs import current_slug_of_former
from web.views.access import activate_viewer_zone
from web.views.series.rows import occurrence_rows
from web.views.series.rule_words import describe_rule


def public_path(series: EventSeries) -> str:
    return f"/events/{series.organization.slug}/series/{series.slug}"


def feed_urls(series: EventSeries) -> tuple[str, str]:
    """The feed's address for copying (the public origin's scheme) and for a calendar app
    to subscribe to (`webcal://`, the same host and path)."""
    feed = links.absolute_url(f"/api/event-series/{series.pk}/calendar.ics")
    return feed, "webcal://" + feed.split("://", 1)[-1]


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
    feed_url, webcal_url = feed_urls(series)
    context = {
        "series": series,
        "rule_words": describe_rule(rule) if rule is not None else "",
        "rule_zone": rule.timezone if rule is not None else "",
        "occurrences": occurrence_rows(upcoming, zone),
        "zone": zone,
        "feed_url": feed_url,
        "webcal_url": webcal_url,
        "following": follows_series(request.user, series),
        "login_url": "/login?" + urlencode({"next": public_path(series)}),
    }
    return render(request, "web/series/public.html", context)


@require_POST
def follow(request: HttpRequest, org_slug: str, series_slug: str) -> HttpResponse:
    series = visible_series_by_slug(request.user, org_slug, series_slug)
    if not request.user.is_authenticated:
        return redirect("/login?" + urlencode({"next": public_path(series)}))
    follow_service.follow_series(request.user, series)
    messages.success(request, gettext("You follow this series: new dates come to your inbox."))
    return redirect(public_path(series))


@require_POST
def unfollow(request: HttpRequest, org_slug: str, series_slug: str) -> HttpResponse:
    target = f"/events/{org_slug}/series/{series_slug}"
    if not request.user.is_authenticated:
        return redirect("/login?" + urlencode({"next": target}))
    series_id = (
        EventSeries.objects.filter(organization__slug=org_slug, slug=series_slug)
        .values_list("pk", flat=True)
        .first()
    )
    if series_id is None:
        raise NotFound("Event series not found.")
    follow_service.unfollow_series(request.user, series_id=series_id)
    messages.success(request, gettext("You no longer follow this series."))
    return redirect(target)
