"""The production server as deployed: `gunicorn -c python:encore.gunicorn encore.wsgi`.

Started in the production configuration (DEBUG off, its own key, plain HTTP on
localhost) with two workers: each is warm before it takes a connection, it answers, logs
every request as one JSON line with the request id, and `/metrics` adds up the counts of
both workers.
"""

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.conf import settings
from prometheus_client.parser import text_string_to_metric_families

from common.tests.ports import free_port
from encore import limits

pytestmark = pytest.mark.own_processes

SRC = Path(settings.SRC_DIR)
WORKERS = 2


@dataclass
class Server:
    url: str
    process: subprocess.Popen[str]
    log: Path


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    port = free_port()
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "PROMETHEUS_", "LOG_", "PYTEST"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="encore.settings",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=f"gunicorn-test-{uuid.uuid4().hex}{uuid.uuid4().hex}",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="false",
        ENCORE_VAR_DIR=str(tmp_path / "var"),
        SQLITE_PATH=str(tmp_path / "db.sqlite3"),
        ENCORE_HOST="127.0.0.1",
        ENCORE_PORT=str(port),
        WEB_CONCURRENCY=str(WORKERS),
    )
    env.pop("DATABASE_URL", None)  # liveness, metrics and the log-in page need no database
    # The production storage serves the collected files by their manifest, as deployed.
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=SRC,
        env=env,
        check=True,
        capture_output=True,
    )
    log = tmp_path / "gunicorn.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:encore.gunicorn", "encore.wsgi"],
            cwd=SRC,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        # Ready when both workers say they are warm: no request has been made yet.
        deadline = time.monotonic() + 60
        while len(_warm_pids(log)) < WORKERS:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"gunicorn's workers did not warm up:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield Server(url, process, log)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


#: A page, an API route, the German page: what a first visitor or client asks for.
PATHS = ["/login", "/api/nope", "/health/live", "/login?lang=de"]


def requests_counted(metrics_text: str) -> float:
    for family in text_string_to_metric_families(metrics_text):
        if family.name == "django_http_requests_total_by_method":
            return sum(s.value for s in family.samples if s.labels.get("method") == "GET")
    return 0.0


def _access_lines(log: Path) -> list[dict]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("logger") == "gunicorn.access"]


def _booted_pids(log: Path) -> set[int]:
    return {
        int(line.split("pid: ")[1].rstrip(")"))
        for line in log.read_text().splitlines()
        if "Booting worker with pid" in line
    }


def _tail(log: Path) -> str:
    return log.read_text()[-8000:]


def _warm_pids(log: Path) -> set[int]:
    """The workers that logged `Worker <pid> warm` (`encore.gunicorn.post_worker_init`)."""
    return {
        int(line.split("Worker ")[1].split()[0])
        for line in log.read_text().splitlines()
        if " warm in " in line and "Worker " in line
    }


def test_a_cold_server_answers_its_first_requests_within_a_second(server: Server) -> None:
    """Each worker loaded the routes, templates and catalogues before it took a connection
    (`encore.warmup`): the first requests of a fresh server, a page and the API, do not pay
    for them. Sent at once, they reach both workers."""
    assert _warm_pids(server.log) == _booted_pids(server.log)

    def first(path: str) -> float:
        started = time.monotonic()
        response = requests.get(f"{server.url}{path}", headers={"Connection": "close"}, timeout=30)
        assert response.status_code < 500, (path, response.status_code, _tail(server.log))
        return time.monotonic() - started

    with ThreadPoolExecutor(max_workers=4) as pool:
        took = dict(zip(PATHS, pool.map(first, PATHS), strict=True))
    assert max(took.values()) < 1.0, took


def test_what_the_server_refuses_before_the_app_is_answered_in_the_apis_shape(
    server: Server,
) -> None:
    """A request line or headers over `encore.limits` never reach Encore's code: gunicorn
    answers them itself, as JSON with the API's codes (issue 34), not with an HTML page."""
    line = f"{server.url}/api/events?q={'x' * limits.REQUEST_LINE_MAX_BYTES}"
    header = {"X-Long": "y" * (limits.HEADER_MAX_BYTES + 1)}
    many = {f"X-Header-{n}": "z" for n in range(limits.HEADERS_MAX + 1)}

    answers = [
        requests.get(line, timeout=10),
        requests.get(f"{server.url}/api/events", headers=header, timeout=10),
        requests.get(f"{server.url}/api/events", headers=many, timeout=10),
    ]

    assert [(a.status_code, a.headers["Content-Type"]) for a in answers] == [
        (414, "application/json"),
        (431, "application/json"),
        (431, "application/json"),
    ]
    assert [a.json()["code"] for a in answers] == [
        "uri_too_long",
        "headers_too_large",
        "headers_too_large",
    ]
    assert all(a.json()["detail"] for a in answers)
    # Within the limits, the app answers as before (its database is not even set up here).
    fine = f"{server.url}/health/live?q={'x' * 4000}"
    assert requests.get(fine, headers={"X-Long": "y" * 4000}, timeout=10).status_code == 200


def _probe(url: str, n: int) -> str:
    response = requests.get(
        f"{url}/health/live",
        headers={"X-Request-ID": f"probe-{n}", "Connection": "close"},
        timeout=5,
    )
    assert response.status_code == 200
    assert response.headers["X-Request-ID"] == f"probe-{n}"
    return f"probe-{n}"


def test_two_workers_json_access_log_with_request_id_and_metrics_of_both(server: Server) -> None:
    booted = _booted_pids(server.log)
    assert len(booted) == 2
    # Which worker accepts a connection is the kernel's choice: send concurrent batches
    # until both have served probes (bounded), so the metric below adds up two processes.
    ids: list[str] = []
    serving: set[int] = set()
    with ThreadPoolExecutor(max_workers=10) as pool:
        for _batch in range(10):
            ids += pool.map(lambda n: _probe(server.url, n), range(len(ids), len(ids) + 20))
            time.sleep(0.3)  # let the access log lines reach the file
            access = _access_lines(server.log)
            serving = {
                line["pid"] for line in access if str(line["request_id"]).startswith("probe-")
            }
            if serving == booted:
                break
    assert serving == booted

    metrics = requests.get(f"{server.url}/metrics", timeout=5)
    assert metrics.status_code == 200
    # Both workers' counts: one worker alone would have seen only its own share.
    assert requests_counted(metrics.text) >= len(ids)

    access = _access_lines(server.log)
    assert set(ids) <= {line["request_id"] for line in access}
    probe = next(line for line in access if line["request_id"] == "probe-0")
    assert probe["status"] == 200 and probe["path"] == "/health/live"
    assert probe["method"] == "GET" and isinstance(probe["duration_ms"], int)
