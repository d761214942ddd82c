"""`make run` (scripts/run.sh) starts on the embedded defaults and serves the demo.

The zero-setup promise of the README, checked as a newcomer would: nothing configured
(no DATABASE_URL, no broker, no key), a fresh var/ folder, a port of our own. The script
must print where it listens, answer /health/live, list the demo's events, start again a
worker that dies (as kombu's Redis transport can end one) while the rest keeps serving,
and stop all its processes on SIGTERM.
"""

import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests

from .support import HOST, PROJECT_DIR, StackError, free_port, group_alive, port_open, wait_until

#: From the script's start to the first answer: install check, migrations, the demo, then
#: gunicorn, whose first request still builds the API (issue 34 warms workers). On CI it
#: shares two cores with the other test processes and lint (once seen taking 120 s),
#: hence the margin.
START_SECONDS = 240
#: What Encore reads from the environment; none of it may leak in from the test run.
CONFIGURED = re.compile(
    r"^(DATABASE_URL|SQLITE_PATH|CELERY_|CACHE_URL|DJANGO_|EMAIL_|TELEGRAM_|REQUIRE_|ENCORE_|"
    r"WEB_CONCURRENCY|GUNICORN_|THROTTLE_|TEST_DATABASE_NAME)"
)


def clean_environment(port: int, var_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not CONFIGURED.match(k)}
    return {**env, "ENCORE_PORT": str(port), "ENCORE_VAR_DIR": str(var_dir)}


@pytest.mark.own_processes
@pytest.mark.xdist_group("stack")  # never beside the stack test: both start whole stacks
@pytest.mark.timeout(420)
def test_make_run_serves_the_demo_on_embedded_defaults_and_stops_cleanly() -> None:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="encore-run-") as folder:
        var_dir = Path(folder) / "var"
        output = Path(folder) / "run.out"
        with output.open("wb") as sink:
            script = subprocess.Popen(
                ["bash", "scripts/run.sh"],
                cwd=PROJECT_DIR,
                env=clean_environment(port, var_dir),
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        try:
            url = f"http://{HOST}:{port}"

            def started() -> bool:
                if script.poll() is not None:
                    raise AssertionError(
                        f"run.sh exited {script.returncode}:\n{output.read_text()}"
                    )
                return (
                    f"{url}/api" in output.read_text()
                    and requests.get(f"{url}/health/live", timeout=2).ok
                )

            try:
                wait_until(started, timeout=START_SECONDS, what="run.sh serving", interval=0.5)
            except StackError as error:
                said = output.read_text()
                raise AssertionError(
                    f"{error}\nrun.sh said:\n{said[:2000]}\n...\n{said[-1500:]}"
                ) from None
            listed = requests.get(f"{url}/api/events", timeout=10)
            assert listed.status_code == 200, listed.text[:500]
            assert listed.json()["count"] > 0, "the demo's events are listed"
            assert (var_dir / "encore.sqlite3").exists()  # the embedded database, in var/
            # The pages, as a newcomer opens them: the printed URL, the demo's events, and
            # the stylesheet served by the app itself (collected, through whitenoise).
            said = output.read_text()
            assert f"Web app   {url}/" in said
            # The URLs come once the server answers, its workers warm (encore/warmup.py).
            assert 0 <= said.find(" warm in ") < said.index("Encore is running:"), said[-3000:]
            home = requests.get(f"{url}/", timeout=10)
            assert home.status_code == 200 and "Full House" in home.text, home.text[:500]
            stylesheet = re.search(r'href="(/static/[^"]+\.css)"', home.text)
            assert stylesheet is not None, home.text[:500]
            assert requests.get(f"{url}{stylesheet.group(1)}", timeout=10).status_code == 200
            _a_killed_worker_comes_back(script, url, var_dir / "log" / "worker-notify.log", output)
        finally:
            os.killpg(script.pid, signal.SIGTERM)
            try:
                code = script.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(script.pid, signal.SIGKILL)
                script.wait(timeout=10)
                raise
            log = output.read_text()
        # Every process of the script's group is gone: no orphan worker or server left.
        deadline = time.monotonic() + 15
        while group_alive(script.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        leftover = group_alive(script.pid)
        if leftover:
            os.killpg(script.pid, signal.SIGKILL)
        assert not leftover, f"processes left behind by run.sh:\n{log[-3000:]}"
        assert not port_open(port)
        assert code in (0, 143), f"run.sh exited {code}:\n{log[-3000:]}"


#: A worker's start (Django, the broker) on a shared CI machine; after a restart, the
#: supervisor's first pause (1 s) comes before it.
READY_SECONDS = 60
RESTART_SECONDS = 30


def _a_killed_worker_comes_back(
    script: subprocess.Popen[bytes], url: str, worker_log: Path, output: Path
) -> None:
    """SIGKILL the notify worker, a process of the script's group: run.sh starts a new
    one (a new pid, ready again), the web goes on answering, and the script goes on."""
    # The URLs come once the web answers; the workers may still be connecting.
    wait_until(
        lambda: " ready." in worker_log.read_text(),
        timeout=READY_SECONDS,
        what="the notify worker ready",
        interval=0.3,
    )
    (worker,) = _group_processes(script.pid, "-Q", "notify")
    os.kill(worker, signal.SIGKILL)
    (restarted,) = wait_until(
        lambda: _group_processes(script.pid, "-Q", "notify") - {worker},
        timeout=RESTART_SECONDS,
        what="a new notify worker",
        interval=0.3,
    )
    assert requests.get(f"{url}/health/live", timeout=10).ok
    assert script.poll() is None, f"run.sh exited {script.returncode}:\n{output.read_text()}"
    assert "run.sh: worker-notify exited (code 137); restarting in 1 s" in output.read_text()
    # Not only started: connected and consuming again. The log keeps the first run's lines.
    wait_until(
        lambda: worker_log.read_text().count(" ready.") == 2,
        timeout=READY_SECONDS,
        what=f"the new notify worker ({restarted}) ready",
        interval=0.3,
    )
    assert _group_processes(script.pid, "-Q", "notify") == {restarted}


def _group_processes(pgid: int, *args: str) -> set[int]:
    """The live processes of group `pgid` whose command line has `args` in a row."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # gone meanwhile
            continue
        # After the command name in parentheses (which may hold spaces): state, ppid, pgrp.
        if int(stat.rpartition(")")[2].split()[2]) != pgid:
            continue
        if any(argv[i : i + len(args)] == list(args) for i in range(len(argv))):
            found.add(int(entry.name))
    return found
