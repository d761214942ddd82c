"""Who may open a page: the pages' side of `events.core.selectors.access`.

Signed-in pages send an anonymous visitor to the log-in page and back (docs/spec/ui.md). The
permission checks themselves are the admin API's (`access_event_admin`,
`access_organization_admin`, …), called by the views; their `NotFound` and
`PermissionDenied` become the 404 and 403 pages (`web.middleware`).
"""

import functools
import zoneinfo
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone

from common.timezones import is_valid_timezone

View = TypeVar("View", bound=Callable[..., HttpResponse])


def login_redirect(request: HttpRequest) -> HttpResponse:
    """The log-in page, coming back to this page (a GET's own URL) afterwards."""
    target = request.get_full_path() if request.method == "GET" else request.path
    return redirect(f"/login?{urlencode({'next': target})}")


def signed_in(view: View) -> View:
    """Anonymous visitors go to the log-in page first, then come back."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return login_redirect(request)
        return view(request, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def viewer_zone(request: HttpRequest, fallback: str = "UTC") -> str:
    """The zone times are shown in: the signed-in viewer's, else `fallback` (e.g. the event's)."""
    user = request.user
    name = (getattr(user, "timezone", "") if user.is_authenticated else "") or fallback
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return name


def activate_viewer_zone(request: HttpRequest, fallback: str) -> str:
    """Make `viewer_zone` the active zone for the template's own date filters, and return it."""
    name = viewer_zone(request, fallback)
    timezone.activate(zoneinfo.ZoneInfo(name))
    return name


def event_zone(event: Any) -> str:
    """The zone organiser pages show an event's times in: the event's own, whoever reads
    them, with its abbreviation ("18:00 CET"): the organiser plans the event there, and
    a colleague abroad must read the same time as the poster says."""
    name = getattr(event, "timezone", "") or "UTC"
    return name if is_valid_timezone(name) else "UTC"
