"""JSON logs carry the `extra` fields and the request id; every response names its id."""

import io
import json
import logging
import logging.config
from collections.abc import Iterator
from copy import deepcopy
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory

from common import request_id
from common.request_id import RequestIdMiddleware


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """The production log configuration (LOG_FORMAT=json), writing into a buffer."""
    stream = io.StringIO()
    config: dict[str, Any] = deepcopy(settings.LOGGING)
    config["handlers"]["console"]["formatter"] = "json"
    config["handlers"]["console"]["stream"] = stream
    logging.config.dictConfig(config)
    try:
        yield stream
    finally:
        logging.config.dictConfig(settings.LOGGING)


def records(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def view_that_logs(request: HttpRequest) -> HttpResponse:
    logging.getLogger("events.waitlist.services").info(
        "waitlist batch created", extra={"event_id": "e-1", "batch_id": "b-2", "offers": 3}
    )
    return HttpResponse("ok")


@pytest.mark.django_db  # closing the response runs request_finished, which tidies connections
def test_a_record_with_extra_fields_during_a_request_is_json_with_them_and_the_request_id(
    json_log,
) -> None:
    middleware = RequestIdMiddleware(view_that_logs)

    response = middleware(RequestFactory().get("/anything"))
    logging.getLogger("django.request").warning("logged as the response goes out")
    response.close()  # the server closes it: the request is over
    logging.getLogger("encore").info("after the request")

    [record] = [r for r in records(json_log) if r["message"] == "waitlist batch created"]
    assert record["event_id"] == "e-1"
    assert record["batch_id"] == "b-2"
    assert record["offers"] == 3
    assert record["level"] == "INFO"
    assert record["logger"] == "events.waitlist.services"
    assert record["request_id"] == response["X-Request-ID"]
    assert len(response["X-Request-ID"]) >= 16
    [late] = [r for r in records(json_log) if r["message"] == "logged as the response goes out"]
    assert late["request_id"] == response["X-Request-ID"]
    [after] = [r for r in records(json_log) if r["message"] == "after the request"]
    assert after["request_id"] == "-"


def test_outside_a_request_the_record_says_so(json_log) -> None:
    logging.getLogger("encore").warning("no request here", extra={"series_id": "s-1"})

    [record] = [r for r in records(json_log) if r["message"] == "no request here"]
    assert record["series_id"] == "s-1"
    assert record["request_id"] == "-"


def test_a_safe_incoming_request_id_is_kept_and_an_unsafe_one_replaced() -> None:
    client = Client()

    kept = client.get("/health/live", headers={"X-Request-ID": "lb-7f3a.42:1"})
    replaced = client.get("/health/live", headers={"X-Request-ID": "x\r\nSet-Cookie: a=b"})
    fresh = client.get("/health/live")

    assert kept["X-Request-ID"] == "lb-7f3a.42:1"
    assert "\n" not in replaced["X-Request-ID"] and "Set-Cookie" not in replaced["X-Request-ID"]
    assert fresh["X-Request-ID"] != replaced["X-Request-ID"]


def test_production_logs_are_json_and_development_may_be_text() -> None:
    formatters: dict[str, Any] = settings.LOGGING["formatters"]
    assert formatters["json"]["()"] == "pythonjsonlogger.json.JsonFormatter"
    assert settings.LOG_FORMAT == "text"  # the test run is development mode


def test_a_task_enqueued_during_a_request_carries_its_id_into_the_worker() -> None:
    """The publish hook writes the id into the message headers; the worker's prerun hook
    binds it again, so the task's log records name the request behind it."""
    headers: dict[str, Any] = {}
    with request_id.bound("req-42"):
        request_id.add_to_task_headers(headers=headers)
    assert headers == {request_id.TASK_HEADER: "req-42"}

    class Task:
        request = SimpleNamespace(**headers)

    with request_id.bound(None):
        request_id.bind_from_task(task=Task())
        assert request_id.current() == "req-42"
