"""The parts of the stack test, each a real server this process starts and stops.

- `Postgres`: a private cluster (initdb as the `postgres` OS user, trust auth, 127.0.0.1
  only), on its own port, stoppable and restartable mid-test.
- `Redis`: a private `redis-server` (no persistence), stoppable and restartable.
- `Smtp`: one SMTP address for the stack that either *hangs* (accepts the connection and
  never says a word, the failure of issue 9) or forwards to a real aiosmtpd server that
  collects the mail; the test switches it.
- `Stack`: the production processes, started with the commands of docs/operations.md.

Every wait is bounded in time and count, every process is stopped by the object that
started it (by its own process group id), and every process writes a log file that
`Logs.tails()` prints when a test fails.
"""

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from aiosmtpd.controller import Controller

from notifications.tests.servers import RecordingSmtpHandler

SRC_DIR = Path(__file__).resolve().parents[3]
PROJECT_DIR = SRC_DIR.parent
PYTHON = str(PROJECT_DIR / ".venv" / "bin" / "python")
if not Path(PYTHON).exists():  # a venv elsewhere: the interpreter running the tests
    PYTHON = sys.executable
PG_BIN = Path(os.environ.get("ENCORE_PG_BIN", "/usr/lib/postgresql/15/bin"))
HOST = "127.0.0.1"

#: The stack test's own ports (ask the coordinator before widening the range).
PORTS = range(18700, 18800)
_handed_out: set[int] = set()
_ports_lock = threading.Lock()

T = TypeVar("T")


class StackError(AssertionError):
    """A part of the stack did not come up, or did not go down, in its bound."""


def free_port() -> int:
    """The next port of `PORTS` nobody listens on (and not handed out before)."""
    with _ports_lock:
        for port in PORTS:
            if port in _handed_out:
                continue
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                try:
                    probe.bind((HOST, port))
                except OSError:
                    continue
            _handed_out.add(port)
            return port
    raise StackError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


def wait_until(
    probe: Callable[[], T | None], *, timeout: float, what: str, interval: float = 0.1
) -> T:
    """Call `probe` until it returns something truthy; at most `timeout` seconds and
    `timeout / interval + 1` calls. Exceptions count as "not yet"; the last one is shown."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    for _ in range(int(timeout / interval) + 1):
        try:
            value = probe()
            if value:
                return value
        except StackError:  # a part died: waiting longer cannot help
            raise
        except Exception as error:  # not up yet: keep the reason for the message
            last = error
        if time.monotonic() >= deadline:
            break
        time.sleep(interval)
    raise StackError(
        f"{what}: not within {timeout:.0f} s" + (f" (last error: {last!r})" if last else "")
    )


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((HOST, port)) == 0


# -- logs ---------------------------------------------------------------------------------------
@dataclass
class Logs:
    """The folder every part writes its log to; `tails()` is what a failure prints."""

    folder: Path

    def path(self, name: str) -> Path:
        return self.folder / f"{name}.log"

    def tails(self, lines: int = 60) -> str:
        out = []
        for log in sorted(self.folder.glob("*.log")):
            text = log.read_text(errors="replace").splitlines()
            out.append(f"----- {log.name} (last {min(lines, len(text))} of {len(text)} lines)")
            out.extend(text[-lines:])
        return "\n".join(out)


# -- processes ----------------------------------------------------------------------------------
@dataclass
class Process:
    """One long-running command in its own process group, its output in a log file."""

    name: str
    command: Sequence[str]
    env: dict[str, str]
    cwd: Path
    log: Path
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        handle = self.log.open("ab")
        handle.write(f"\n===== start: {' '.join(self.command)}\n".encode())
        handle.flush()
        self.popen = subprocess.Popen(
            list(self.command),
            cwd=self.cwd,
            env=self.env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own group: stop() reaches gunicorn's/celery's children
        )
        handle.close()

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def stop(self, timeout: float = 20) -> int | None:
        """SIGTERM to the group, SIGKILL after `timeout`; the exit code (None if never run)."""
        if self.popen is None:
            return None
        if self.popen.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.popen.wait(timeout=10)
        self._signal(signal.SIGKILL)  # children that outlived their parent
        return self.popen.returncode

    def _signal(self, sig: signal.Signals) -> None:
        assert self.popen is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, sig)


def run(
    command: Sequence[str], *, timeout: float, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """A short command that must succeed; its output is in the error if it does not."""
    done = subprocess.run(
        list(command), capture_output=True, text=True, timeout=timeout, check=False, **kwargs
    )
    if done.returncode != 0:
        raise StackError(
            f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done


# -- PostgreSQL ---------------------------------------------------------------------------------
def _as_postgres(command: Sequence[str]) -> list[str]:
    """initdb refuses to run as root: run the server tools as the `postgres` OS user."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return list(command)


class Postgres:
    """A private PostgreSQL cluster in a temp folder; `stop()`/`start()` at will."""

    def __init__(self, logs: Logs) -> None:
        self.logs = logs
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="encore-stack-pg-"))
        self.data = self.root / "data"
        self.log = logs.path("postgres")
        self.log.touch()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            shutil.chown(self.log, "postgres", "postgres")
            self.logs.folder.chmod(0o711)  # the server appends to its log file in there
        self.running = False

    def url(self, database: str = "encore") -> str:
        return f"postgres://postgres@{HOST}:{self.port}/{database}"

    def init(self) -> None:
        run(
            _as_postgres([
                str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                "-E", "UTF8", "--locale=C", "--no-sync",
            ]),
            timeout=120,
        )  # fmt: skip

    def start(self) -> None:
        options = " ".join([
            f"-p {self.port}", f"-c listen_addresses={HOST}", f"-k {self.root}",
            "-c shared_buffers=16MB", "-c max_connections=120", "-c fsync=off",
            "-c synchronous_commit=off", "-c full_page_writes=off",
        ])  # fmt: skip
        run(
            _as_postgres([
                str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options,
                "-w", "-t", "60", "start",
            ]),
            timeout=90,
        )  # fmt: skip
        self.running = True

    def stop(self) -> None:
        """Fast shutdown: open connections are cut, as when the database host goes away."""
        if not self.data.exists():
            return
        run(
            _as_postgres(
                [
                    str(PG_BIN / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-m",
                    "fast",
                    "-w",
                    "-t",
                    "60",
                    "stop",
                ]
            ),
            timeout=90,
        )
        self.running = False

    def create_database(self, name: str) -> None:
        run(
            [str(PG_BIN / "createdb"), "-h", HOST, "-p", str(self.port), "-U", "postgres", name],
            timeout=60,
        )

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.url(), connect_timeout=5, autocommit=True) as conn:
            return conn.execute(sql, params).fetchall()

    def destroy(self) -> None:
        with contextlib.suppress(StackError, subprocess.TimeoutExpired):
            if self.running:
                self.stop()
        if self.running:  # the graceful stop failed: the postmaster's pid is in its file
            with contextlib.suppress(OSError, ValueError):
                pid = int((self.data / "postmaster.pid").read_text().split()[0])
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.root, ignore_errors=True)


# -- Redis --------------------------------------------------------------------------------------
class Redis:
    """A private redis-server holding nothing on disk; `stop()`/`start()` at will."""

    def __init__(self, logs: Logs) -> None:
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="encore-stack-redis-"))
        self.process = Process(
            "redis",
            [
                "redis-server", "--port", str(self.port), "--bind", HOST, "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--dir", str(self.root),
            ],
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            cwd=self.root,
            log=logs.path("redis"),
        )  # fmt: skip

    def url(self, db: int) -> str:
        return f"redis://{HOST}:{self.port}/{db}"

    def start(self) -> None:
        self.process.start()
        wait_until(self.ping, timeout=20, what="redis-server answering PING")

    def ping(self) -> bool:
        with socket.create_connection((HOST, self.port), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")

    def stop(self) -> None:
        self.process.stop()
        wait_until(lambda: not port_open(self.port), timeout=10, what="redis-server gone")

    def destroy(self) -> None:
        self.process.stop()
        shutil.rmtree(self.root, ignore_errors=True)


# -- SMTP ---------------------------------------------------------------------------------------
class Smtp:
    """The stack's one SMTP address. `hang()`: every new connection is accepted and never
    answered (no greeting, nothing read). `deliver()`: new connections are relayed to a
    real aiosmtpd server whose messages are in `messages`."""

    def __init__(self) -> None:
        self.port = free_port()
        self.handler = RecordingSmtpHandler()
        self.collector = Controller(self.handler, hostname=HOST, port=free_port())
        self.mode = "deliver"
        self.connections: list[socket.socket] = []
        self.hung = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server((HOST, self.port), reuse_port=False)
        self._listener.settimeout(0.2)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="smtp-switch", daemon=True)

    @property
    def messages(self) -> list[Any]:
        return self.handler.messages

    def start(self) -> None:
        self.collector.start()
        self._thread.start()

    def hang(self) -> None:
        self.mode = "hang"

    def deliver(self) -> None:
        self.mode = "deliver"

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.connections.append(client)
                if self.mode == "hang":
                    self.hung += 1
                    continue  # kept open, never read, never answered
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection((HOST, self.collector.port), timeout=10)
        except OSError:
            client.close()
            return
        with self._lock:
            self.connections.append(upstream)

        def pump(source: socket.socket, sink: socket.socket) -> None:
            with contextlib.suppress(OSError):
                while chunk := source.recv(65536):
                    sink.sendall(chunk)
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

        threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
        pump(client, upstream)

    def stop(self) -> None:
        self._stopping.set()
        self._listener.close()
        with self._lock:
            for conn in self.connections:
                with contextlib.suppress(OSError):
                    conn.close()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        with contextlib.suppress(AssertionError, RuntimeError):  # never started
            self.collector.stop()


# -- the Encore stack ---------------------------------------------------------------------------
#: The production server's command line, exactly as docs/operations.md gives it (from src/).
def web_command() -> list[str]:
    return [PYTHON, "-m", "gunicorn", "-c", "python:encore.gunicorn", "encore.wsgi"]


#: The pool of each queue's worker (docs/operations.md, ADR 0012): threads, so a hung
#: channel send holds one thread (for at most EMAIL_TIMEOUT), not a whole process.
#: `critical` never waits on a network peer; `notify`'s threads bound how many offer
#: e-mails can hang at once.
WORKER_POOLS = {"critical": 4, "notify": 8, "bulk": 4}


def worker_command(queue: str) -> list[str]:
    return [
        PYTHON, "-m", "celery", "-A", "encore", "worker", "-Q", queue, "-n", f"{queue}@%h",
        "--pool=threads", f"--concurrency={WORKER_POOLS[queue]}", "--loglevel=INFO",
    ]  # fmt: skip


def beat_command() -> list[str]:
    return [PYTHON, "-m", "celery", "-A", "encore", "beat", "--loglevel=INFO"]


@dataclass
class Stack:
    """Encore in production configuration against the private servers."""

    logs: Logs
    database_url: str
    redis: Redis
    smtp: Smtp
    var_dir: Path
    web_port: int = field(default_factory=free_port)
    web_workers: int = 2
    processes: dict[str, Process] = field(default_factory=dict)
    #: Restarts by the supervisor, per process name (docs: `Restart=always`).
    restarts: dict[str, int] = field(default_factory=dict)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _supervisor: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.web_port}"

    @property
    def env(self) -> dict[str, str]:
        """The production environment of docs/operations.md; nothing from the caller's
        environment leaks in (the test run's own DATABASE_URL, REQUIRE_* ...)."""
        keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
        base = {k: os.environ[k] for k in keep if k in os.environ}
        return {
            **base,
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "encore.settings",
            "DJANGO_DEBUG": "false",
            "DJANGO_SECRET_KEY": _secret_key(self.var_dir),
            "DJANGO_ALLOWED_HOSTS": f"{HOST},localhost",
            # Plain HTTP on the loopback: no TLS terminator in front (docs: set true behind one).
            "DJANGO_SECURE_SSL_REDIRECT": "false",
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": self.redis.url(0),
            "CACHE_URL": self.redis.url(1),
            "EMAIL_HOST": HOST,
            "EMAIL_PORT": str(self.smtp.port),
            "ENCORE_VAR_DIR": str(self.var_dir),
            "FRONTEND_BASE_URL": self.base_url,
            "WEB_CONCURRENCY": str(self.web_workers),
            "GUNICORN_BIND": f"{HOST}:{self.web_port}",
            "PROMETHEUS_MULTIPROC_DIR": str(self.var_dir / "prometheus"),
        }

    def manage(self, *args: str, timeout: float = 180) -> str:
        return run([PYTHON, "manage.py", *args], timeout=timeout, cwd=SRC_DIR, env=self.env).stdout

    def celery(self, *args: str, timeout: float = 60) -> str:
        return run(
            [PYTHON, "-m", "celery", "-A", "encore", *args],
            timeout=timeout,
            cwd=SRC_DIR,
            env=self.env,
        ).stdout

    def script(self, module: str, *args: str, timeout: float = 180) -> Any:
        """Run `python -m module args` with the stack's environment; its stdout as JSON."""
        out = run([PYTHON, "-m", module, *args], timeout=timeout, cwd=SRC_DIR, env=self.env).stdout
        return json.loads(out.strip().splitlines()[-1])

    def prepare(self) -> None:
        """What an operator does before the processes start (docs/operations.md)."""
        (self.var_dir / "prometheus").mkdir(parents=True, exist_ok=True)
        self.manage("migrate", "--noinput")
        self.manage("collectstatic", "--noinput")

    def start(self, only: Sequence[str] | None = None) -> None:
        """Start the processes (all, or those named in `only` that are not running yet)."""
        commands = {
            "beat": beat_command(),
            "web": web_command(),
            "worker-critical": worker_command("critical"),
            "worker-notify": worker_command("notify"),
            "worker-bulk": worker_command("bulk"),
        }
        for name, command in commands.items():
            if name in self.processes or (only is not None and name not in only):
                continue
            process = Process(name, command, self.env, SRC_DIR, self.logs.path(name))
            self.processes[name] = process
            process.start()
        if only is not None:
            return
        for queue in WORKER_POOLS:
            wait_until(
                partial(self._worker_ready, queue),
                timeout=60,
                what=f"the {queue} worker ready",
                interval=0.25,
            )
        wait_until(self._web_up, timeout=60, what="gunicorn answering /health/live")
        self._supervisor = threading.Thread(target=self._supervise, name="supervisor", daemon=True)
        self._supervisor.start()

    def _supervise(self) -> None:
        """What the operator's service manager does (docs/operations.md: `Restart=always`):
        a process that exits is started again after a second, and counted."""
        while not self._stopping.wait(0.5):
            for name, process in self.processes.items():
                if process.popen is not None and process.popen.poll() is not None:
                    if self._stopping.wait(1):
                        return
                    with process.log.open("a") as log:
                        log.write(
                            f"\n===== supervisor: exited {process.popen.returncode}; restarting\n"
                        )
                    self.restarts[name] = self.restarts.get(name, 0) + 1
                    process.start()

    def ready(self) -> tuple[int, str]:
        import requests

        response = requests.get(self.base_url + "/health/ready", timeout=10)
        return response.status_code, response.text

    def wait_ready(self, timeout: float) -> None:
        last: list[tuple[int, str]] = []

        def probe() -> bool:
            last[:] = [self.ready()]
            return last[0][0] == 200

        try:
            wait_until(probe, timeout=timeout, what="/health/ready answering 200", interval=0.5)
        except StackError as error:
            raise StackError(f"{error}; last answer: {last}") from None

    def _worker_ready(self, queue: str) -> bool:
        self._alive_or_fail()
        return "ready." in self.logs.path(f"worker-{queue}").read_text(errors="replace")

    def _alive_or_fail(self) -> bool:
        if dead := self.dead():
            raise StackError(f"stopped during start-up: {dead}\n{self.logs.tails()}")
        return True

    def _web_up(self) -> bool:
        import requests

        self._alive_or_fail()
        return requests.get(self.base_url + "/health/live", timeout=2).status_code == 200

    def dead(self) -> list[str]:
        return [name for name, p in self.processes.items() if not p.alive]

    def web_worker_pids(self) -> list[int]:
        """The gunicorn worker processes (children of the arbiter)."""
        arbiter = self.processes["web"].popen
        assert arbiter is not None
        children = Path(f"/proc/{arbiter.pid}/task/{arbiter.pid}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []

    def stop(self) -> dict[str, int | None]:
        self._stopping.set()
        if self._supervisor is not None:
            self._supervisor.join(timeout=5)
        return {name: process.stop() for name, process in reversed(self.processes.items())}


def _secret_key(var_dir: Path) -> str:
    """One random key per stack (never a key from the repository), stable across calls."""
    path = var_dir / "stack-secret-key"
    if not path.exists():
        var_dir.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text()


@contextlib.contextmanager
def stopped(part: Postgres | Redis) -> Iterator[None]:
    """`part` is down inside the block and up again after it, whatever happens inside."""
    part.stop()
    try:
        yield
    finally:
        part.start()
