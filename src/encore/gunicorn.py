"""gunicorn settings: `cd src && gunicorn -c python:encore.gunicorn encore.wsgi`.

Every value comes from the environment (docs/architecture/deployment.md):

- `GUNICORN_BIND`, else `ENCORE_HOST`:`ENCORE_PORT` (127.0.0.1:8000);
- `WEB_CONCURRENCY` worker processes (2); `GUNICORN_THREADS` per worker (1: sync
  workers; more switches gunicorn to its threaded worker);
- `GUNICORN_BACKLOG` (2048): connections the kernel queues while every worker is busy.
  Django's development server listened with 10, so a burst of 100 got resets;
- `GUNICORN_TIMEOUT` (30 s): a worker silent for longer is killed and replaced;
- `GUNICORN_MAX_REQUESTS` (1000, with jitter): a worker is recycled after that many;
  a new worker loads the routes and templates before it takes a connection
  (`post_worker_init`, `encore.warmup`).

The access log goes to stdout, one JSON object a line (`LOG_FORMAT`, as the app reads
it), with the request id the app put on the response.

Requests over the sizes of `encore.limits` are refused by gunicorn itself, before the
path is known: it answers them in the API's error shape, JSON with a `code`, whatever the
path (`_write_error`), not with its own HTML page.

Prometheus counts of all worker processes (and of Celery workers on this host that share
the directory) add up through `PROMETHEUS_MULTIPROC_DIR`, default `var/prometheus`. It
is set here before any worker imports prometheus_client. Files left by processes of an
earlier run are removed when gunicorn starts; a worker that exits is marked dead.
"""

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gunicorn import util
from gunicorn.glogging import Logger

from encore import limits

_VAR_DIR = Path(os.environ.get("ENCORE_VAR_DIR") or Path(__file__).resolve().parents[2] / "var")
METRICS_DIR = Path(os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(_VAR_DIR / "prometheus")))
METRICS_DIR.mkdir(parents=True, exist_ok=True)


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw else default


bind = os.environ.get("GUNICORN_BIND") or (
    f"{os.environ.get('ENCORE_HOST') or '127.0.0.1'}:{os.environ.get('ENCORE_PORT') or '8000'}"
)
workers = _env_int("WEB_CONCURRENCY", 2)
threads = _env_int("GUNICORN_THREADS", 1)
backlog = _env_int("GUNICORN_BACKLOG", 2048)
timeout = _env_int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _env_int("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = _env_int("GUNICORN_KEEPALIVE", 5)
max_requests = _env_int("GUNICORN_MAX_REQUESTS", 1000)
max_requests_jitter = max(max_requests // 10, 0)
# The app limits bodies itself (413); the request line and the headers are refused here.
limit_request_line = limits.REQUEST_LINE_MAX_BYTES
limit_request_field_size = limits.HEADER_MAX_BYTES
limit_request_fields = limits.HEADERS_MAX
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "INFO").lower()
# X-Forwarded-* are trusted from these addresses only (the TLS proxy in front).
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
proc_name = "encore-web"
# gunicorn's control socket (gunicornc) defaults to one path per user, which two servers
# on a host would fight over: off unless a path is given.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket
# Like the app's LOG_FORMAT: json unless set to text (text by default in development).
_DEBUG = os.environ.get("DJANGO_DEBUG", "").strip().lower() in {"1", "true", "yes", "on"}
LOG_FORMAT = os.environ.get("LOG_FORMAT") or ("text" if _DEBUG else "json")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms [%({x-request-id}o)s]'


class JsonAccessLogger(Logger):
    """The access line as a JSON object, escaped properly whatever the client sent."""

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if LOG_FORMAT != "json" or not self.access_log_enabled:
            super().access(resp, req, environ, request_time)
            return
        atoms = self.atoms(resp, req, environ, request_time)
        line = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "level": "INFO",
            "logger": "gunicorn.access",
            "message": f"{atoms['m']} {atoms['U']} {atoms['s']}",
            "method": atoms["m"],
            "path": atoms["U"],
            "query": atoms["q"],
            "status": int(atoms["s"]) if str(atoms["s"]).isdigit() else atoms["s"],
            "bytes": atoms["B"],
            "duration_ms": atoms["M"],
            "remote_addr": atoms["h"],
            "user_agent": atoms["a"],
            "request_id": atoms.get("{x-request-id}o", "-"),
            "pid": os.getpid(),
        }
        self.access_log.info("%s", json.dumps(line, default=str))


logger_class = JsonAccessLogger

#: The API's error codes for what gunicorn refuses before the application sees it.
_ERROR_CODES = {
    400: "bad_request",
    403: "forbidden",
    414: "uri_too_long",
    417: "expectation_failed",
    431: "headers_too_large",
    500: "server_error",
    501: "not_implemented",
}


def _write_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's answer to a request it cannot hand to the app (too long a line, too many
    or too large headers, a malformed request), as the API answers any error: the path is
    not read yet, so API clients and pages alike get `{"code", "detail"}`."""
    body = json.dumps(
        {"code": _ERROR_CODES.get(status_int, "bad_request"), "detail": f"{reason}: {mesg}"}
    ).encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


# The workers call `util.write_error` for these answers; no setting chooses the format.
util.write_error = _write_error

_METRICS_FILE = re.compile(r"_(\d+)\.db$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def on_starting(server: Any) -> None:
    """Forget the counts of processes that are gone (an earlier run), keep live ones'."""
    for path in METRICS_DIR.glob("*.db"):
        match = _METRICS_FILE.search(path.name)
        if match and not _alive(int(match.group(1))):
            path.unlink(missing_ok=True)


def post_worker_init(worker: Any) -> None:
    """Load the routes, templates and catalogues before the worker takes a connection
    (`encore.warmup`), so no request pays for a fresh or recycled worker."""
    from encore.warmup import warm

    worker.log.info("Worker %s warm in %.0f ms", worker.pid, warm())


def child_exit(server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
