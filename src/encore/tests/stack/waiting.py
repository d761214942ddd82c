"""Bounded waiting for the stack test: the stack's own ports (free ones handed out once), a
port that answers, and `wait_until` with its bound in time and count. `StackError` is what
a part of the stack raises when it does not come up, or go down, in its bound.
"""

import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from common.tests.ports import MAX_PROCESSES, process_index

HOST = "127.0.0.1"

#: The stack test's own ports (ask the coordinator before widening the range), split
#: between the test processes of a parallel run so two never hand out the same one.
_SHARE = 100 // MAX_PROCESSES
PORTS = range(18700 + _SHARE * process_index(), 18700 + _SHARE * (process_index() + 1))
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


def group_alive(pgid: int) -> bool:
    """Whether any process of the process group `pgid` is still there."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True
