"""One error family for the whole project.

Every domain error carries a stable snake_case `code`, an HTTP status and optional
structured `extra` fields; one handler in `common.api` turns them into the JSON error
shape of docs/spec/api.md (`{"detail", "code", ...extra}`).
"""

from typing import Any, TypeVar

from django.db.models import Model, QuerySet


class EncoreError(Exception):
    status_code = 400
    default_code = "bad_request"
    default_detail = "The request could not be processed."

    def __init__(
        self,
        detail: str | None = None,
        *,
        code: str | None = None,
        extra: dict[str, Any] | None = None,
        status_code: int | None = None,
    ) -> None:
        self.detail = detail or self.default_detail
        self.code = code or self.default_code
        self.extra = extra or {}
        if status_code is not None:
            self.status_code = status_code
        super().__init__(self.detail)

    def payload(self) -> dict[str, Any]:
        return {"detail": self.detail, "code": self.code, **self.extra}


class InvalidInput(EncoreError):
    """Field validation failed; `errors` maps field names to messages."""

    default_code = "invalid"
    default_detail = "Invalid input."

    def __init__(self, errors: dict[str, list[str]], detail: str | None = None) -> None:
        super().__init__(detail, extra={"errors": errors})


class NotFound(EncoreError):
    status_code = 404
    default_code = "not_found"
    default_detail = "Not found."


class PermissionDenied(EncoreError):
    status_code = 403
    default_code = "permission_denied"
    default_detail = "You do not have permission to perform this action."


class Conflict(EncoreError):
    status_code = 409
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."


class Busy(EncoreError):
    """A row lock could not be taken in time: the client should retry shortly."""

    status_code = 503
    default_code = "busy"
    default_detail = "The server is busy with this resource; please retry shortly."
    retry_after_seconds = 2


class Throttled(EncoreError):
    """Too many attempts from this client or on this account: 429 with Retry-After."""

    status_code = 429
    default_code = "throttled"
    default_detail = "Too many attempts; please try again later."

    def __init__(self, retry_after_seconds: int, detail: str | None = None) -> None:
        super().__init__(detail)
        self.retry_after_seconds = max(int(retry_after_seconds), 1)


class Unavailable(EncoreError):
    """The database cannot be reached: nothing was done, the client should retry later."""

    status_code = 503
    default_code = "unavailable"
    default_detail = "The service is unavailable; please retry shortly."
    retry_after_seconds = 5


M = TypeVar("M", bound=Model)


def first_or_not_found(queryset: QuerySet[M], detail: str) -> M:
    """The first row of `queryset`, else `NotFound(detail)`: a lookup scoped to what the
    caller may see answers 404 alike for a missing row and one out of scope (docs/spec/api.md)."""
    found = queryset.first()
    if found is None:
        raise NotFound(detail)
    return found
