"""One middleware for what every API request must be before a view sees it (ADR 0009).

Under `/api`, in this order, each check in one function:

1. a body over `API_MAX_BODY_BYTES` (Content-Length, then the bytes read) → 413 `too_large`;
2. a write with a body whose Content-Type is not JSON → 415 `unsupported_media_type`
   (a write without a body passes whatever it declares);
3. a NUL character in the path, a query parameter, or any key or string of the JSON
   body (raw or escaped as `\\u0000`) → 400 `invalid`: PostgreSQL cannot store one in a
   text column, and no field of this API has a use for it; a body that is not JSON at
   all → 400 `invalid` as well, since the route's parser could do nothing else with it.

Nothing has been read from or written to the database when a check refuses. On the way
back it keeps every answer under `/api` JSON: an error that Django rendered as HTML (an
unknown route's 404, ninja's 405 for a known route's wrong method, a 400 for a bad
`Host`, the debug 500 page) is replaced by `{"detail", "code"}` for the same status, and
a view that raised because the database is unreachable answers 503 `unavailable`.
"""

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBase

from common.http.responses import is_api_request, json_error, unavailable
from common.locking import is_database_unavailable

logger = logging.getLogger("encore.api")

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
NUL = "\x00"
#: Answer headers that still hold when an HTML error page is replaced by JSON.
KEPT_HEADERS = ("Allow", "Retry-After")

Check = Callable[[HttpRequest], HttpResponse | None]


class ApiRequestGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not is_api_request(request):
            return self.get_response(request)
        for check in CHECKS:
            refusal = check(request)
            if refusal is not None:
                return refusal
        return as_json_error(self.get_response(request))

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A view that raised because the database is out of reach → 503, not a 500.

        ninja's handlers (`common.api`) answer this for everything inside an operation;
        this covers a view outside them, and `handler500` a middleware further in.
        """
        if is_api_request(request) and is_database_unavailable(exception):
            logger.error("database unavailable", exc_info=exception)
            return unavailable()
        return None


def refuse_oversized_body(request: HttpRequest) -> HttpResponse | None:
    limit = int(settings.API_MAX_BODY_BYTES)
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit:
        return _too_large(limit)
    try:
        body = request.body
    except RequestDataTooBig:
        return _too_large(limit)
    return _too_large(limit) if len(body) > limit else None


def refuse_non_json_write(request: HttpRequest) -> HttpResponse | None:
    if request.method not in WRITE_METHODS or not request.body or _is_json(request):
        return None
    return json_error(
        415,
        detail=f"A request body must be sent as application/json, not {request.content_type!r}.",
    )


def refuse_nul_characters(request: HttpRequest) -> HttpResponse | None:
    try:
        where = _nul_location(request)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return _invalid("non_field_errors", "The request body is not valid JSON.")
    if where is None:
        return None
    return _invalid(where, "NUL characters are not allowed.")


CHECKS: tuple[Check, ...] = (refuse_oversized_body, refuse_non_json_write, refuse_nul_characters)


def as_json_error(response: HttpResponseBase) -> HttpResponseBase:
    """An error answer Django rendered as a page → the JSON error shape, same status."""
    if response.status_code < 400 or response.streaming or _is_json_response(response):
        return response
    replaced = json_error(response.status_code)
    for header in KEPT_HEADERS:
        if header in response:
            replaced[header] = response[header]
    return replaced


# -- helpers ------------------------------------------------------------------------------
def _invalid(field: str, message: str) -> HttpResponse:
    return json_error(400, "invalid", "Invalid input.", errors={field: [message]})


def _too_large(limit: int) -> HttpResponse:
    return json_error(413, detail=f"The request body is larger than {limit} bytes.")


def _is_json(request: HttpRequest) -> bool:
    media_type = (request.content_type or "").lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


def _is_json_response(response: HttpResponseBase) -> bool:
    media_type = response.get("Content-Type", "").split(";")[0].strip().lower()
    return media_type == "application/json" or media_type.endswith("+json")


def _nul_location(request: HttpRequest) -> str | None:
    """Where the first NUL is (`path`, a query parameter, a body field), else None.

    Raises ValueError (or RecursionError) for a JSON body that does not parse.
    """
    if NUL in request.path_info:
        return "path"
    for key, values in request.GET.lists():
        if NUL in key or any(NUL in value for value in values):
            return key.replace(NUL, "") or "query"
    if request.method not in WRITE_METHODS or not request.body or not _is_json(request):
        return None
    return next(_nul_paths(json.loads(request.body)), None)


def _nul_paths(document: Any) -> Iterator[str]:
    """Dotted paths of strings (or keys) holding a NUL, walked without recursion."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if NUL in value:
                yield path or "non_field_errors"
        elif isinstance(value, dict):
            for key, item in value.items():
                if NUL in key:
                    yield path or "non_field_errors"
                stack.append((f"{path}.{key}" if path else str(key), item))
        elif isinstance(value, list):
            stack.extend((f"{path}.{i}" if path else str(i), item) for i, item in enumerate(value))
