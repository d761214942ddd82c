"""`make run` stops within a bounded time (scripts/lib/processes.sh, `stop_processes`).

run.sh used to SIGTERM its processes and wait for as long as they took: once, under
load, a worker slow to stop kept the script alive past the 30 s the run-script test
gives it. These tests run the function itself, in bash, on processes of our own: one
that stops when asked and one that ignores SIGTERM, as a process stuck in its warm
shutdown does.
"""

import subprocess
import time

from .support import PROJECT_DIR

LIBRARY = PROJECT_DIR / "scripts" / "lib" / "processes.sh"
#: A process that ignores SIGTERM: `exec` keeps the ignored disposition in `sleep`.
STUBBORN = "bash -c 'trap \"\" TERM; exec sleep 60' &"
OBEDIENT = "sleep 60 &"


def _stop(grace: int, *starts: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Start `starts` in a bash that sources the library, then stop them all; returns
    how long `stop_processes` took and what the script printed (the pids it started
    first, one per line, then whether each is still alive)."""
    lines = [f"source {LIBRARY}", "pids=()"]
    for start in starts:
        lines += [start, 'pids+=($!); echo "started $!"']
    lines += [
        "sleep 0.3",  # let the children install their signal dispositions
        f'stop_processes {grace} "${{pids[@]}}"',
        'for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && echo "alive $p"; done; true',
    ]
    began = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", "\n".join(lines)], check=False, capture_output=True, text=True, timeout=45
    )
    return time.monotonic() - began, done


def test_a_process_that_ignores_sigterm_is_killed_once_the_grace_is_over() -> None:
    took, done = _stop(1, OBEDIENT, STUBBORN)
    assert done.returncode == 0, done.stderr
    started = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("started")]
    assert len(started) == 2
    assert "alive" not in done.stdout, done.stdout  # nothing left behind
    assert took < 5, f"stop_processes took {took:.1f} s with a grace of 1 s"
    # Only the stubborn one needed the hard stop, and the script says so.
    assert f"killed: {started[1]}" in done.stderr, done.stderr
    assert started[0] not in done.stderr.split("killed:")[-1].split()


def test_processes_that_stop_when_asked_end_it_at_once() -> None:
    took, done = _stop(20, OBEDIENT, OBEDIENT)
    assert done.returncode == 0, done.stderr
    assert "alive" not in done.stdout and "killed" not in done.stderr, (done.stdout, done.stderr)
    assert took < 5, f"stop_processes waited {took:.1f} s for processes that had stopped"
