"""`make run` keeps its processes running and stops them within a bounded time
(scripts/lib/processes.sh: `supervise`, `stop_processes`).

run.sh used to SIGTERM its processes and wait for as long as they took: once, under
load, a worker slow to stop kept the script alive past the 30 s the run-script test
gives it. It also stopped the whole stack when one process exited (kombu's Redis
transport ends a worker when the broker restarts). These tests run the functions
themselves, in bash, on processes of our own: one that stops when asked, one that
ignores SIGTERM, as a process stuck in its warm shutdown does, and one that exits.
"""

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path

from .support import PROJECT_DIR, group_alive, wait_until

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


# -- supervise ---------------------------------------------------------------------------
#: The supervised command, run from the test's folder: it counts its runs in `runs`,
#: writes "start RUN PID TIME" to its log, then does what `behaviour` says for that run.
COMMAND = """n=$(( $(cat runs 2>/dev/null || echo 0) + 1 )); echo "$n" >runs
echo "start $n $$ $(date +%s.%N)"
case $n in {behaviour}
esac"""
RESTART = re.compile(r"^run\.sh: test exited \(code (\d+)\); restarting in (\d+) s$", re.MULTILINE)


@contextmanager
def _supervising(
    folder: Path, behaviour: str, *, grace: int = 5, **bounds: int
) -> Iterator[subprocess.Popen[str]]:
    """`supervise` on COMMAND in a bash of its own (`set -euo pipefail`, as run.sh), in a
    session of its own so that nothing it leaves behind escapes the check; its stderr
    goes to `folder/stderr`, the command's output to `folder/log`."""
    (folder / "command.sh").write_text(COMMAND.format(behaviour=behaviour))
    (folder / "log").write_text("a previous start's lines\n")
    settings = "".join(f"SUPERVISE_{name.upper()}={value}; " for name, value in bounds.items())
    script = (
        f"set -euo pipefail; source {LIBRARY}; {settings}"
        f"supervise test {grace} {folder / 'log'} bash command.sh"
    )
    with (folder / "stderr").open("w") as stderr:
        supervisor = subprocess.Popen(
            ["bash", "-c", script],
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
            start_new_session=True,
        )
    try:
        yield supervisor
    finally:
        if group_alive(supervisor.pid):
            os.killpg(supervisor.pid, signal.SIGKILL)
        supervisor.wait(timeout=10)


def _starts(folder: Path) -> list[tuple[int, int, float]]:
    """(run, pid, time) of each start the command logged."""
    return [
        (int(run), int(pid), float(at))
        for run, pid, at in re.findall(
            r"^start (\d+) (\d+) ([\d.]+)$", _read(folder / "log"), re.MULTILINE
        )
    ]


def _terminate(supervisor: subprocess.Popen[str], *, within: float) -> float:
    """SIGTERM to the supervisor alone (as run.sh's own stop sends it); how long it took
    to exit. Everything it started must be gone by then."""
    began = time.monotonic()
    supervisor.send_signal(signal.SIGTERM)
    code = supervisor.wait(timeout=within)
    took = time.monotonic() - began
    assert code == 143, f"supervise exited {code}"
    assert not group_alive(supervisor.pid), "supervise left processes behind"
    return took


def test_a_command_that_exits_is_started_again_after_a_growing_pause(tmp_path: Path) -> None:
    # Runs 1-3 exit at once; run 4 lasts longer than "steady", which resets the pause;
    # run 5 stays.
    behaviour = "1|2|3) exit 3;; 4) sleep 2.5; exit 3;; *) exec sleep 60;;"
    with _supervising(tmp_path, behaviour, max_delay=2, steady=2) as supervisor:
        wait_until(lambda: len(_starts(tmp_path)) >= 5, timeout=30, what="the fifth start")
        _terminate(supervisor, within=10)
    said = _read(tmp_path / "stderr")
    restarts = [(int(code), int(pause)) for code, pause in RESTART.findall(said)]
    # Doubling, capped at max_delay (2), back to 1 s after a run that lasted.
    assert restarts == [(3, 1), (3, 2), (3, 2), (3, 1)], said
    starts = _starts(tmp_path)
    assert [run for run, _, _ in starts] == [1, 2, 3, 4, 5]
    gaps = [later[2] - earlier[2] for earlier, later in pairwise(starts)]
    # Each restart waited its pause (run 4 also ran for 2.5 s), and not much longer.
    for gap, least in zip(gaps, [1, 2, 2, 3.5], strict=True):
        assert least - 0.1 <= gap < least + 1.5, (gaps, said)
    log = _read(tmp_path / "log")
    assert "a previous start" not in log  # emptied once, at the start of supervision ...
    assert len(RESTART.findall(log)) == 4  # ... then kept across restarts, with the reasons


def test_sigterm_stops_the_current_run_within_the_grace(tmp_path: Path) -> None:
    # Run 1 exits; run 2, a new pid, ignores SIGTERM as a process stuck in its warm
    # shutdown does: the supervisor must stop that one, not the first, and in bounded time.
    behaviour = """1) exit 1;; *) trap "" TERM; exec sleep 60;;"""
    with _supervising(tmp_path, behaviour, grace=1) as supervisor:
        wait_until(lambda: len(_starts(tmp_path)) >= 2, timeout=15, what="the second start")
        time.sleep(0.3)  # let it install its disposition
        (_, first, _), (_, current, _) = _starts(tmp_path)
        assert first != current
        took = _terminate(supervisor, within=10)
    assert took < 5, f"supervise took {took:.1f} s to stop with a grace of 1 s"
    said = _read(tmp_path / "stderr")
    assert f"killed: {current}" in said, said


def test_sigterm_during_the_pause_stops_at_once(tmp_path: Path) -> None:
    with _supervising(tmp_path, "*) exit 1;;") as supervisor:
        wait_until(
            lambda: "restarting in 2 s" in _read(tmp_path / "stderr"),
            timeout=15,
            what="the second pause",
        )
        took = _terminate(supervisor, within=10)  # the pause's `sleep` is gone too
    assert took < 1, f"supervise took {took:.1f} s to stop during a pause"


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""
