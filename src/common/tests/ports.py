"""A free TCP port for a server a test starts: the kernel picks one nobody listens on.

A fixed port collides with whatever else the machine runs (another suite's server, a
CI neighbour); a port the kernel handed out a moment ago is free unless something
binds it in between, which is what "ephemeral" makes unlikely.
"""

import os
import socket

#: At most this many test processes share the machine: `make test`'s TEST_PROCESSES, for
#: both of CI's runs side by side.
MAX_PROCESSES = 6


def process_index() -> int:
    """0 for a plain run, N for pytest-xdist's test process gwN, moved up by
    TEST_PROCESS_OFFSET when another run shares the machine (CI's two runs): what a test
    process uses to take its own share of a resource the machine has one of (ports,
    Redis databases)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) if worker.startswith("gw") else 0
    index += int(os.environ.get("TEST_PROCESS_OFFSET", "0"))
    if index >= MAX_PROCESSES:
        raise RuntimeError(f"test process {worker}: at most {MAX_PROCESSES} share the machine")
    return index


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
