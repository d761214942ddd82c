"""What every page (not the API) needs around its view: the viewer's language and zone,
an `EncoreError` turned into a page instead of JSON, and the API's write limit.

The API keeps its own language rules and JSON errors, so both steps skip `/api/`. A
signed-in viewer's pages follow their profile (`language`, `timezone`); an anonymous
visitor gets the browser's language and, on an event's pages, the event's zone (the view
passes it; the active zone stays UTC here).
"""

import math
import zoneinfo
from collections.abc import Callable
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone, translation
from django.utils.translation import gettext

from common.api import WriteThrottle
from common.errors import EncoreError

API_PREFIX = "/api/"


class PageLocaleMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith(API_PREFIX):
            return self.get_response(request)
        user: Any = getattr(request, "user", None)
        signed_in = user is not None and user.is_authenticated
        language = (user.language if signed_in else "") or translation.get_language_from_request(
            request
        )
        zone = _zone(user.timezone) if signed_in else None
        with translation.override(language):
            if zone is not None:
                timezone.activate(zone)
            try:
                response = self.get_response(request)
            finally:
                timezone.deactivate()
            response.headers.setdefault("Content-Language", translation.get_language())
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A refusal raised by a selector or service (404, 403, 409 …) as an error page."""
        if request.path.startswith(API_PREFIX) or not isinstance(exception, EncoreError):
            return None
        context = {"status": exception.status_code, "detail": exception.detail}
        return render(request, "web/error.html", context, status=exception.status_code)


def _zone(name: str) -> zoneinfo.ZoneInfo | None:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


class PageWriteLimitMiddleware:
    """Every page POST counts against the API's write limit (`WriteThrottle`, one counter).

    A page write is as much a write as its API route: without the same limit, sign-up
    would let anyone try addresses (ADR 0017), password reset flood mailboxes, and an
    organiser's script hammer the waitlist actions at a rate the API refuses. Beyond it:
    429 with Retry-After, and the view does not run, so nothing changes. A POST that
    writes nothing (the series builder's live preview, sent as the organiser types) is
    marked with `writes_nothing` and not counted.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view: Callable[..., HttpResponse],
        args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> HttpResponse | None:
        if request.method != "POST" or request.path.startswith(API_PREFIX):
            return None
        if getattr(view, WRITES_NOTHING, False):
            return None
        throttle = WriteThrottle()
        if throttle.allow_request(request):
            return None
        context = {"status": 429, "detail": gettext("Too many requests; please try again later.")}
        response = render(request, "web/error.html", context, status=429)
        response["Retry-After"] = str(max(math.ceil(throttle.wait() or 1), 1))
        return response


WRITES_NOTHING = "writes_nothing"
PageView = TypeVar("PageView", bound=Callable[..., HttpResponse])


def writes_nothing(view: PageView) -> PageView:
    """Mark a POST view that changes nothing, so the write limit does not count it."""
    setattr(view, WRITES_NOTHING, True)
    return view
