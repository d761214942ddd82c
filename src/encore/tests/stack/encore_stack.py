"""`Stack`: Encore's production processes (gunicorn, a Celery worker per queue, beat),
started with the commands of docs/operations.md against the private servers, each stopped
by the object that started it (by its own process group id).
"""

import contextlib
import json
import os
import secrets
import signal
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from encore.tests.stack.processes import PYTHON, SRC_DIR, Logs, Process, run
from encore.tests.stack.servers import Redis, Smtp
from encore.tests.stack.waiting import HOST, StackError, free_port, wait_until


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
    #: Settings the test sets on top of the production environment (shortened clocks).
    settings: dict[str, str] = field(default_factory=dict)
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
            "ENCORE_PUBLIC_URL": self.base_url,
            "WEB_CONCURRENCY": str(self.web_workers),
            "GUNICORN_BIND": f"{HOST}:{self.web_port}",
            "PROMETHEUS_MULTIPROC_DIR": str(self.var_dir / "prometheus"),
            **self.settings,
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

    def kill(self, name: str) -> int:
        """SIGKILL the process `name` (a worker dies mid-task: no shutdown, no ack); its pid.
        The supervisor starts it again, as the service manager would."""
        pid = self._pid(name)
        os.kill(pid, signal.SIGKILL)
        return pid

    @contextlib.contextmanager
    def paused(self, *names: str) -> Iterator[None]:
        """The processes `names` frozen (SIGSTOP) inside the block, whatever happens in it:
        alive to the supervisor and to Redis's open connections, taking nothing."""
        pids = [self._pid(name) for name in names]
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)

    def _pid(self, name: str) -> int:
        popen = self.processes[name].popen
        assert popen is not None and popen.poll() is None, f"{name} is not running"
        return popen.pid

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
