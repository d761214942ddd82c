"""The JSON error answers of the HTTP edge, and Django's `handler500`.

These are the answers given outside ninja's exception handlers (`common.api`): by the
request guards before a view runs, for Django's own HTML error pages under `/api`, and
for an exception that escaped every view and middleware. The body is docs/spec/api.md's shape,
`{"detail", "code"}`, like everything `common.api` answers.
"""

import logging
import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

from common.errors import Unavailable
from common.locking import is_database_unavailable

logger = logging.getLogger("encore.api")

API_PREFIX = "/api/"

#: The code for each status Django or the guards may answer without a view's say.
STATUS_CODES = {
    400: "bad_request",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    500: "server_error",
    503: "unavailable",
}
STATUS_DETAILS = {
    400: "Bad request.",
    403: "Forbidden.",
    404: "Not found.",
    405: "Method not allowed.",
    413: "The request body is too large.",
    415: "The request body must be JSON.",
    500: "Internal error.",
    503: "The service is unavailable; please retry shortly.",
}


def is_api_request(request: HttpRequest) -> bool:
    path = request.path_info
    return path == API_PREFIX.rstrip("/") or path.startswith(API_PREFIX)


def json_error(
    status: int, code: str | None = None, detail: str | None = None, **extra: object
) -> JsonResponse:
    body = {
        "detail": detail or STATUS_DETAILS.get(status, "Error."),
        "code": code or STATUS_CODES.get(status, "error"),
        **extra,
    }
    return JsonResponse(body, status=status)


def unavailable() -> JsonResponse:
    """503 `unavailable` with `Retry-After`: the database cannot be reached."""
    error = Unavailable()
    response = json_error(error.status_code, error.code, error.detail)
    response["Retry-After"] = str(error.retry_after_seconds)
    return response


#: The page of a database outage: plain HTML, so that nothing of it needs the database
#: (a template of the app reads the session and the user).
UNAVAILABLE_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Encore is briefly unavailable</title></head>
<body><main><h1>Encore is briefly unavailable</h1>
<p>We cannot reach our database right now. Nothing you did is lost: please try again in a
moment.</p></main></body>
</html>
"""


def unavailable_page() -> HttpResponse:
    """503 with `Retry-After`, as HTML: a page while the database cannot be reached."""
    response = HttpResponse(UNAVAILABLE_PAGE, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(Unavailable().retry_after_seconds)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: under `/api` JSON, elsewhere a page; 503 when the database is down.

    Django calls it for any exception that left a view or a middleware, while it is
    still handling that exception, so `sys.exc_info()` names the cause; Django has
    already logged it with its traceback. A page's middleware reads the session and the
    user, so during an outage the exception may come before any view runs.
    """
    down = is_database_unavailable(sys.exc_info()[1])
    if not is_api_request(request):
        return unavailable_page() if down else defaults.server_error(request)
    return unavailable() if down else json_error(500)
