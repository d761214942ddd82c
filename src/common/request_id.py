"""A request id on every response and every log record written while serving it.

The id ties together the access log line, the application's log records and a
client's bug report. A caller (a proxy, a client retrying) may send `X-Request-ID`;
it is kept only if it is short and made of safe characters, so it cannot inject lines
or markup into logs. Otherwise a new one is made. Tasks a request enqueues carry it in
their message headers (`celery_headers` / `bind_from_task`), so their logs join the
request's.
"""

import logging
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponse

HEADER = "X-Request-ID"
TASK_HEADER = "encore_request_id"
_SAFE = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_current: ContextVar[str | None] = ContextVar("encore_request_id", default=None)


def current() -> str | None:
    """The id of the request (or task) being served in this context, if any."""
    return _current.get()


def accept_or_make(incoming: str | None) -> str:
    if incoming and _SAFE.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


@contextmanager
def bound(request_id: str | None) -> Iterator[None]:
    token = _current.set(request_id)
    try:
        yield
    finally:
        _current.reset(token)


class RequestIdMiddleware:
    """Binds the id for the rest of the request, and past this middleware: Django logs
    the response (`django.request`'s 4xx/5xx lines) after the middleware chain returned,
    so the id is cleared only when the response is closed (`request_finished`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = accept_or_make(request.headers.get(HEADER))
        request.request_id = request_id  # type: ignore[attr-defined]
        _current.set(request_id)
        response = self.get_response(request)
        response[HEADER] = request_id
        return response


def forget(**_: Any) -> None:
    """The request (or task) is over: later records of this thread carry no id."""
    _current.set(None)


request_finished.connect(forget, weak=False, dispatch_uid="encore_request_id_forget")


class RequestIdLogFilter(logging.Filter):
    """Adds `request_id` to every record ("-" outside a request), for both log formats."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _current.get() or "-"
        return True


def add_to_task_headers(headers: dict[str, Any] | None, **_: Any) -> None:
    """Celery `before_task_publish`: a task enqueued during a request carries its id."""
    request_id = _current.get()
    if headers is not None and request_id:
        headers.setdefault(TASK_HEADER, request_id)


def bind_from_task(task: Any = None, **_: Any) -> None:
    """Celery `task_prerun`: the task's log records carry the id of the request behind it."""
    request_id = getattr(getattr(task, "request", None), TASK_HEADER, None)
    _current.set(request_id if isinstance(request_id, str) else None)
