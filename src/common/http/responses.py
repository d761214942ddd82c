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


def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: JSON under `/api` (503 when the database is down), Django's page elsewhere.

    Django calls it for any exception that left a view or a middleware, while it is
    still handling that exception, so `sys.exc_info()` names the cause; Django has
    already logged it with its traceback.
    """
    if not is_api_request(request):
        return defaults.server_error(request)
    if is_database_unavailable(sys.exc_info()[1]):
        return unavailable()
    return json_error(500)
