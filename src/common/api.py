"""HTTP plumbing shared by every controller: error shape, throttling, pagination.

One place turns every failure into the error shape of docs/spec/api.md, so controllers never
need try/except: domain errors, Django validation errors, request-schema errors,
authentication and permission failures, throttling, lock timeouts, an unreachable
database (503 `unavailable`) and a value the database refuses (400 `invalid`).
"""

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from ninja import Schema
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError
from ninja_extra import NinjaExtraAPI
from ninja_extra.exceptions import APIException
from ninja_extra.pagination import PageNumberPaginationExtra
from ninja_extra.throttling import UserRateThrottle
from ninja_jwt.authentication import JWTAuth
from ninja_jwt.exceptions import AuthenticationFailed, InvalidToken

from common import rate_limit
from common.client_ip import client_limit_key
from common.errors import Busy, EncoreError, Unavailable
from common.http.fields import FIELD_VALUE_ERRORS
from common.locking import is_database_unavailable, is_lock_timeout

logger = logging.getLogger("encore.api")


class ErrorSchema(Schema):
    detail: str
    code: str


def error_responses(*statuses: int) -> dict[int, Any]:
    """`{status: ErrorSchema}` for the error statuses a route declares, in the order given.

    Spread it into a route's `response=`; it only documents the route in OpenAPI: the
    handlers installed below write every error body, whatever the route declares.
    """
    return dict.fromkeys(statuses, ErrorSchema)


class Pagination(PageNumberPaginationExtra):
    """`?page=&page_size=` (default 20, max 100) → `{count, next, previous, results}`."""

    def __init__(self, page_size: int = 20, max_page_size: int | None = 100, **kw: Any) -> None:
        super().__init__(page_size=page_size, max_page_size=max_page_size, **kw)


def anonymous(request: HttpRequest) -> AnonymousUser:
    """Fallback auth: no token → an anonymous caller (a bad token is still 401)."""
    return AnonymousUser()


def optional_jwt_auth() -> list[Any]:
    """`auth=` for routes anonymous callers may use too.

    A valid JWT → the User; no `Authorization` header → `AnonymousUser`; a bad or
    expired token is still a 401, because JWTAuth raises before the fallback is tried.
    """
    return [JWTAuth(), anonymous]


class WriteThrottle(UserRateThrottle):
    """Per-user limit on write endpoints (per client IP for anonymous callers);
    `THROTTLE_ENABLED=false` switches it off.

    Counted with `common.rate_limit` instead of ninja-extra's history list: that one reads
    the list, appends and writes it back, so concurrent requests in several processes
    overwrite each other's entries and far more than the rate gets through. A window opens
    with a caller's first write and admits exactly `num_requests` until it closes.
    """

    scope = "write"

    def get_rate(self) -> str | None:
        return str(settings.WRITE_THROTTLE_RATE)

    def get_ident(self, request: HttpRequest) -> str:
        """The client as `common.client_ip` defines it (never a raw X-Forwarded-For)."""
        return client_limit_key(request)

    def allow_request(self, request: HttpRequest) -> bool:
        if not settings.THROTTLE_ENABLED or self.num_requests is None or self.duration is None:
            return True
        key = self.get_cache_key(request)
        if key is None:
            return True
        window = rate_limit.hit(key, self.duration)
        # Read back by wait() right after a refusal (as ninja's own throttles keep state);
        # the decision above never depends on it.
        self.retry_after = window.retry_after
        return window.count <= self.num_requests

    def wait(self) -> float | None:
        return float(getattr(self, "retry_after", None) or self.duration or 1)


def _validation_messages(error: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(error, "error_dict"):
        return {
            field: [str(m) for e in errs for m in e.messages]
            for field, errs in error.error_dict.items()
        }
    return {"non_field_errors": [str(m) for m in error.messages]}


def _schema_messages(error: NinjaValidationError) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in error.errors:
        loc = [
            str(part)
            for part in item.get("loc", ())
            if part not in ("body", "query", "path", "payload")
        ]
        field = ".".join(loc) or "non_field_errors"
        out.setdefault(field, []).append(str(item.get("msg", "invalid")))
    return out


def _respond(
    api: NinjaExtraAPI,
    request: HttpRequest,
    body: dict[str, Any],
    status: int,
    retry_after: int | None = None,
) -> HttpResponse:
    response = api.create_response(request, body, status=status)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def _error_body(exc: Exception) -> tuple[dict[str, Any], int, int | None]:
    """(body, status, Retry-After) for every exception the API maps; re-raises the rest."""
    if isinstance(exc, EncoreError):
        return exc.payload(), exc.status_code, getattr(exc, "retry_after_seconds", None)
    if isinstance(exc, DjangoValidationError | NinjaValidationError):
        return _validation_body(exc)
    if isinstance(exc, AuthenticationError):
        return {"detail": "Authentication required.", "code": "not_authenticated"}, 401, None
    if isinstance(exc, InvalidToken | AuthenticationFailed):
        return {"detail": "Invalid or expired token.", "code": "token_not_valid"}, 401, None
    if isinstance(exc, Http404 | ObjectDoesNotExist):
        return {"detail": "Not found.", "code": "not_found"}, 404, None
    if isinstance(exc, HttpError):  # ninja and ninja-extra errors, throttling included
        status = int(exc.status_code)
        retry = max(int(getattr(exc, "wait", None) or 1), 1) if status == 429 else None
        return {"detail": str(exc), "code": _STATUS_CODES.get(status, "error")}, status, retry
    if isinstance(exc, OperationalError) and is_lock_timeout(exc):
        return _error_body(Busy())
    if is_database_unavailable(exc):
        logger.error("database unavailable", exc_info=exc)
        return _error_body(Unavailable())
    if isinstance(exc, DataError):
        # SQLSTATE class 22: a value the column cannot hold. The request guards and the
        # input types refuse the known cases first; this keeps an unforeseen one a 400.
        logger.warning("value refused by the database: %s", exc)
        errors = {"non_field_errors": ["A value in this request cannot be stored."]}
        return {"detail": "Invalid input.", "code": "invalid", "errors": errors}, 400, None
    raise exc


def _validation_body(
    exc: DjangoValidationError | NinjaValidationError,
) -> tuple[dict[str, Any], int, None]:
    """Model/field validation → 400; request-schema violations → 422; one shape for both."""
    if isinstance(exc, DjangoValidationError):
        return (
            {"detail": "Invalid input.", "code": "invalid", "errors": _validation_messages(exc)},
            400,
            None,
        )
    # A value out of bounds (an unstorable datetime) is field validation, like a model's.
    status = 400 if all(e.get("type") in FIELD_VALUE_ERRORS for e in exc.errors) else 422
    return (
        {"detail": "Invalid request.", "code": "invalid", "errors": _schema_messages(exc)},
        status,
        None,
    )


_STATUS_CODES = {
    400: "bad_request",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    429: "throttled",
}

MAPPED_EXCEPTIONS: tuple[type[Exception], ...] = (
    EncoreError,
    DjangoValidationError,
    NinjaValidationError,
    AuthenticationError,
    InvalidToken,
    AuthenticationFailed,
    Http404,
    ObjectDoesNotExist,
    HttpError,
    APIException,  # ninja-extra registers its own handler for these; ours must win
    OperationalError,
    InterfaceError,
    DataError,
)


def install_error_handlers(api: NinjaExtraAPI) -> None:
    """Route every mapped exception through `_error_body` to docs/spec/api.md's error shape."""

    def handle(request: HttpRequest, exc: Any) -> HttpResponse:
        body, status, retry_after = _error_body(exc)
        return _respond(api, request, body, status, retry_after)

    for exc_class in MAPPED_EXCEPTIONS:
        api.add_exception_handler(exc_class, handle)
