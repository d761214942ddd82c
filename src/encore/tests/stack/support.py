"""The parts of the stack test, each a real server or process this process starts and
stops, gathered under the names the stack test imports:

- `servers`: `Postgres`, `Redis` and `Smtp`, the private servers, and `stopped(part)`.
- `encore_stack`: `Stack`, the production processes, started with the commands of
  docs/operations.md.
- `processes`: `Process` and `Logs` (every process writes a log file that `Logs.tails()`
  prints when a test fails), the interpreter and the paths.
- `waiting`: the stack's ports, every bounded wait (`wait_until`, `StackError`) and
  `group_alive`.

Every wait is bounded in time and count, and every process is stopped by the object that
started it (by its own process group id).
"""

from encore.tests.stack.encore_stack import Stack
from encore.tests.stack.processes import PG_BIN, PROJECT_DIR, SRC_DIR, Logs
from encore.tests.stack.servers import Postgres, Redis, Smtp, stopped
from encore.tests.stack.waiting import (
    HOST,
    StackError,
    free_port,
    group_alive,
    port_open,
    wait_until,
)

__all__ = [
    "HOST",
    "PG_BIN",
    "PROJECT_DIR",
    "SRC_DIR",
    "Logs",
    "Postgres",
    "Redis",
    "Smtp",
    "Stack",
    "StackError",
    "free_port",
    "group_alive",
    "port_open",
    "stopped",
    "wait_until",
]
