"""The private servers of a stack test:

- `Postgres`: a private cluster (initdb as the `postgres` OS user, trust auth, 127.0.0.1
  only), on its own port, stoppable and restartable mid-test.
- `Redis`: a private `redis-server` (no persistence), stoppable and restartable.
- `Smtp`: one SMTP address for the stack that either *hangs* (accepts the connection and
  never says a word, the failure of issue 9) or forwards to a real aiosmtpd server that
  collects the mail; the test switches it.

`stopped(part)` takes a server down for the length of a block.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

from encore.tests.stack.processes import PG_BIN, Logs, Process, run
from encore.tests.stack.waiting import HOST, StackError, free_port, port_open, wait_until
from notifications.tests.servers import RecordingSmtpHandler


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


@contextlib.contextmanager
def stopped(part: Postgres | Redis) -> Iterator[None]:
    """`part` is down inside the block and up again after it, whatever happens inside."""
    part.stop()
    try:
        yield
    finally:
        part.start()
