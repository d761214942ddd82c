"""HTTP plumbing shared by every controller: error shape, throttling, pagination.

One place turns every failure into the error shape of api.md, so controllers never
need try/except: domain errors, Django validation errors, request-schema errors,
authentication and permission failures, throttling and lock timeouts.
"""

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from ninja import Schema
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError
from ninja_extra import NinjaExtraAPI
from ninja_extra import exceptions as extra_exceptions
from ninja_extra.pagination import PageNumberPaginationExtra
from ninja_extra.throttling import UserRateThrottle
from ninja_jwt.exceptions import AuthenticationFailed, InvalidToken

from common.errors import Busy, EncoreError
from common.locking import is_lock_timeout

logger = logging.getLogger("encore.api")


class ErrorSchema(Schema):
    detail: str
    code: str


class Pagination(PageNumberPaginationExtra):
    """`?page=&page_size=` (default 20, max 100) → `{count, next, previous, results}`."""

    def __init__(self, page_size: int = 20, max_page_size: int | None = 100, **kw: Any) -> None:
        super().__init__(page_size=page_size, max_page_size=max_page_size, **kw)


class WriteThrottle(UserRateThrottle):
    """Per-user limit on write endpoints; `THROTTLE_ENABLED=false` switches it off."""

    scope = "write"

    def get_rate(self) -> str | None:
        return str(settings.WRITE_THROTTLE_RATE)

    def allow_request(self, request: HttpRequest) -> bool:
        if not settings.THROTTLE_ENABLED:
            return True
        return bool(super().allow_request(request))


def _validation_messages(error: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(error, "error_dict"):
        return {field: [str(m) for e in errs for m in e.messages] for field, errs in error.error_dict.items()}
    return {"non_field_errors": [str(m) for m in error.messages]}


def _schema_messages(error: NinjaValidationError) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in error.errors:
        loc = [str(part) for part in item.get("loc", ()) if part not in ("body", "query", "path", "payload")]
        field = ".".join(loc) or "non_field_errors"
        out.setdefault(field, []).append(str(item.get("msg", "invalid")))
    return out


def install_error_handlers(api: NinjaExtraAPI) -> None:
    """Register the handlers that produce api.md's `{"detail", "code", ...}` bodies."""

    def respond(request: HttpRequest, body: dict[str, Any], status: int, **headers: str) -> HttpResponse:
        response = api.create_response(request, body, status=status)
        for name, value in headers.items():
            response[name.replace("_", "-")] = value
        return response

    @api.exception_handler(EncoreError)
    def encore_error(request: HttpRequest, exc: EncoreError) -> HttpResponse:
        if isinstance(exc, Busy):
            return respond(request, exc.payload(), exc.status_code, Retry_After=str(exc.retry_after_seconds))
        return respond(request, exc.payload(), exc.status_code)

    @api.exception_handler(DjangoValidationError)
    def django_validation(request: HttpRequest, exc: DjangoValidationError) -> HttpResponse:
        body = {"detail": "Invalid input.", "code": "invalid", "errors": _validation_messages(exc)}
        return respond(request, body, 400)

    @api.exception_handler(NinjaValidationError)
    def schema_validation(request: HttpRequest, exc: NinjaValidationError) -> HttpResponse:
        body = {"detail": "Invalid request.", "code": "invalid", "errors": _schema_messages(exc)}
        return respond(request, body, 422)

    @api.exception_handler(AuthenticationError)
    def unauthenticated(request: HttpRequest, exc: Exception) -> HttpResponse:
        return respond(request, {"detail": "Authentication required.", "code": "not_authenticated"}, 401)

    @api.exception_handler(InvalidToken)
    @api.exception_handler(AuthenticationFailed)
    def bad_token(request: HttpRequest, exc: Exception) -> HttpResponse:
        return respond(request, {"detail": "Invalid or expired token.", "code": "token_not_valid"}, 401)

    @api.exception_handler(extra_exceptions.Throttled)
    def throttled(request: HttpRequest, exc: extra_exceptions.Throttled) -> HttpResponse:
        wait = int(exc.wait or 1) if hasattr(exc, "wait") else 1
        body = {"detail": "Too many requests.", "code": "throttled"}
        return respond(request, body, 429, Retry_After=str(max(wait, 1)))

    @api.exception_handler(extra_exceptions.APIException)
    def extra_error(request: HttpRequest, exc: extra_exceptions.APIException) -> HttpResponse:
        status = int(exc.status_code)
        code = {401: "not_authenticated", 403: "permission_denied", 404: "not_found"}.get(status, "error")
        return respond(request, {"detail": str(exc.detail), "code": code}, status)

    @api.exception_handler(Http404)
    @api.exception_handler(ObjectDoesNotExist)
    def not_found(request: HttpRequest, exc: Exception) -> HttpResponse:
        return respond(request, {"detail": "Not found.", "code": "not_found"}, 404)

    @api.exception_handler(HttpError)
    def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        return respond(request, {"detail": str(exc), "code": "error"}, exc.status_code)

    @api.exception_handler(OperationalError)
    def database_busy(request: HttpRequest, exc: OperationalError) -> HttpResponse:
        if is_lock_timeout(exc):
            busy = Busy()
            return respond(request, busy.payload(), 503, Retry_After=str(busy.retry_after_seconds))
        raise exc
