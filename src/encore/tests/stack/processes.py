"""The processes of a stack test: where the interpreter and the PostgreSQL binaries are, a
process started in its own process group with a log file (`Process`), stopped by the
object that started it, the logs `Logs.tails()` prints when a test fails, and `run` for a
one-off command.
"""

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from encore.tests.stack.waiting import StackError

SRC_DIR = Path(__file__).resolve().parents[3]
PROJECT_DIR = SRC_DIR.parent
PYTHON = str(PROJECT_DIR / ".venv" / "bin" / "python")
if not Path(PYTHON).exists():  # a venv elsewhere: the interpreter running the tests
    PYTHON = sys.executable
PG_BIN = Path(os.environ.get("ENCORE_PG_BIN", "/usr/lib/postgresql/15/bin"))


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
