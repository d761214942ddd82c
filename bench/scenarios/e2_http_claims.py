"""e2: the claim race of e1 over HTTP, against the production server (docs/spec/quality.md).

gunicorn as docs/operations.md starts it (`gunicorn -c python:encore.gunicorn
encore.wsgi`, from src/), production settings (DEBUG off), 4 sync worker processes, so
the server holds at most 4 database connections (the CI server allows 100). It serves
the bench database; Celery dispatches leave for the Redis of CELERY_BROKER_URL, which
must be the bench's own database: no worker consumes them, and the row empties the three
queues (critical, notify, bulk) of that database afterwards.

200 users hold cutoff offers for the last 20 seats of an RSVP event (cutoff offers hold
nothing, so all 200 race for the 20); each has a JWT and an open HTTP connection before
the start line, then every one sends `POST /api/events/{id}/rsvp/yes` at once. Exactly
20 must get 200 and the rest 409 `event_is_full`; any 5xx (a 503 `busy` included: nobody
retries here) or connection error fails the row. The figure is the race, from the start
line to the last answer; claims/s counts every answer, and the row gives its ratio to
e1's (the same race in-process, so the ratio is what HTTP, routing, authentication and
four worker processes cost or gain). Between runs the claims are undone (untimed).
"""

import http.client
import json
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from accounts.service.tokens import issue_token_pair
from bench import builders
from bench.registry import Measured, Sample, ScenarioUnavailable, committed_scenario
from bench.scenarios.e1_claims import ClaimRace, e1_rate

RACERS = 200
SEATS = 20
WORKERS = 4
HOST = "127.0.0.1"
SRC = Path(__file__).resolve().parents[2] / "src"
PYTHON = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "python")

#: Per run (warm-up included): answers by status; "error" counts connection failures.
_answers: list[Counter[str]] = []


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


class Server:
    """gunicorn with 4 sync workers in its own process group, stopped by its group id."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        self.log = folder / "gunicorn.log"
        broker = os.environ["CELERY_BROKER_URL"]
        keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
        self.env = {
            **{k: os.environ[k] for k in keep if k in os.environ},
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "encore.settings",
            "DJANGO_DEBUG": "false",
            # The bench's key: the JWTs it issues must verify in the server.
            "DJANGO_SECRET_KEY": os.environ["DJANGO_SECRET_KEY"],
            "DJANGO_ALLOWED_HOSTS": f"{HOST},localhost",
            "DJANGO_SECURE_SSL_REDIRECT": "false",
            "DATABASE_URL": os.environ["DATABASE_URL"],
            "CELERY_BROKER_URL": broker,
            "CACHE_URL": broker,
            "ENCORE_VAR_DIR": str(folder),
            "PROMETHEUS_MULTIPROC_DIR": str(folder / "prometheus"),
            "WEB_CONCURRENCY": str(WORKERS),
            "GUNICORN_THREADS": "1",
            "GUNICORN_BIND": f"{HOST}:{self.port}",
        }
        self.broker = broker
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [PYTHON, "-m", "gunicorn", "-c", "python:encore.gunicorn", "encore.wsgi"]
        with self.log.open("ab") as log:
            self.popen = subprocess.Popen(
                command, cwd=SRC, env=self.env, stdout=log, stderr=log, start_new_session=True
            )
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up:
            if self.popen.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log.read_text()[-500:]}")
            if self._live():
                return
            time.sleep(0.25)
        raise RuntimeError("gunicorn did not answer /health/live within 60 s")

    def _live(self) -> bool:
        try:
            connection = http.client.HTTPConnection(HOST, self.port, timeout=2)
            connection.request("GET", "/health/live")
            return connection.getresponse().status == 200
        except OSError:
            return False

    def stop(self) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=10)

    def empty_queues(self) -> None:
        """The dispatches the claims left in the bench's Redis database (nobody consumes
        them); only the three queues' lists, nothing else of that database."""
        import redis

        redis.Redis.from_url(self.broker).delete("critical", "notify", "bulk")


class HttpRace:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.race = ClaimRace("e2", racers=RACERS, seats=SEATS)
        self.path = f"/api/events/{self.race.event.pk}/rsvp/yes"
        self.tokens = [issue_token_pair(person).access for person in self.race.racers]

    def run(self) -> Sample:
        self.race.reset()
        start: list[float] = []
        answers: list[tuple[str, float]] = []
        lock = threading.Lock()
        line = threading.Barrier(RACERS, action=lambda: start.append(time.perf_counter()))

        def client(headers: dict[str, str]) -> None:
            outcome = "error"
            try:
                connection = http.client.HTTPConnection(HOST, self.server.port, timeout=60)
                connection.connect()  # the handshake before the start line
                line.wait(timeout=60)
                connection.request("POST", self.path, body=b"{}", headers=headers)
                response = connection.getresponse()
                body = response.read()
                outcome = str(response.status)
                if response.status == 409 and json.loads(body).get("code") != "event_is_full":
                    outcome = f"409 {json.loads(body).get('code')}"
                connection.close()
            except (OSError, http.client.HTTPException, threading.BrokenBarrierError):
                outcome = "error"
            with lock:
                answers.append((outcome, time.perf_counter()))

        threads = [threading.Thread(target=client, args=(_headers(t),)) for t in self.tokens]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        counts = Counter(outcome for outcome, _ in answers)
        _answers.append(counts)
        if not start or counts != Counter({"200": SEATS, "409": RACERS - SEATS}):
            raise RuntimeError(f"answers {dict(counts)}: expected {SEATS} x 200, the rest 409")
        self.race.assert_seats_taken(counts["200"])
        seconds = max(at for _, at in answers) - start[0]
        return Sample(seconds * 1000, queries=0, rate=RACERS / seconds)  # the server's: unseen


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


@contextmanager
def http_race() -> Iterator[Measured]:
    if not os.environ.get("CELERY_BROKER_URL", "").startswith("redis://"):
        raise ScenarioUnavailable("needs CELERY_BROKER_URL: the bench's own Redis database")
    with tempfile.TemporaryDirectory(prefix="bench-e2-") as folder, builders.committed("e2"):
        (Path(folder) / "prometheus").mkdir()
        server = Server(Path(folder))
        race = HttpRace(server)
        server.start()
        try:
            yield race.run
        finally:
            server.stop()
            server.empty_queues()


def _describe(samples: Sequence[Sample]) -> str:
    rate = statistics.median(s.rate or 0.0 for s in samples)
    ratio = f"{rate / e1_rate[0]:.2f} x e1" if e1_rate and e1_rate[0] else "ratio: run with e1"
    total = sum((c for c in _answers[-len(samples) :]), Counter())
    fives = sum(n for status, n in total.items() if status.startswith("5"))
    return (
        f"{rate:.0f} claims/s = {ratio}; {SEATS}/{RACERS} won every run, "
        f"{fives} 5xx, {total['error']} connection errors; gunicorn {WORKERS} sync workers; "
        "queries: the server's, not seen from here"
    )


@committed_scenario(
    "e2",
    "claims over HTTP: 200 clients, 20 seats, gunicorn x4",
    data=f"{RACERS} cutoff-offer holders with JWTs, 20 seats left",
    method="committed data; each run's claims undone before the next",
    rollback_runs=False,
    describe=_describe,
)
def over_http() -> AbstractContextManager[Measured]:
    return http_race()
