"""The systemd units of deploy/systemd/ run the commands of docs/operations.md ("Start the
processes"), each restarted when it exits, all started by `encore.target`: the units and
the page cannot drift apart without this test failing. No systemd is needed; where
`systemd-analyze` is installed, it checks the files too.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .support import PROJECT_DIR

UNITS = PROJECT_DIR / "deploy" / "systemd"
GUIDE = PROJECT_DIR / "docs" / "operations.md"
TARGET = "encore.target"
#: Where the units expect the checkout (its .venv from `make install`).
INSTALLED = "/srv/encore"

Sections = dict[str, list[tuple[str, str]]]


@dataclass(frozen=True)
class Command:
    """A process as started: its environment beyond /etc/encore.env, and its argv."""

    environment: tuple[tuple[str, str], ...]
    argv: tuple[str, ...]


def parse_unit(*paths: Path) -> Sections:
    """Section → (key, value) in order, over a unit file and its drop-ins: systemd's
    syntax (comments, continued lines, repeated keys), which configparser does not take."""
    sections: Sections = {}
    for path in paths:
        section: list[tuple[str, str]] = []
        text = re.sub(r"\\\n", " ", path.read_text())
        for line in (raw.strip() for raw in text.splitlines()):
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                section = sections.setdefault(line.strip("[]"), [])
            else:
                key, _, value = line.partition("=")
                section.append((key.strip(), value.strip()))
    return sections


def assignment(word: str) -> tuple[str, str]:
    name, _, value = word.partition("=")
    return name, value


def values(sections: Sections, section: str, key: str) -> list[str]:
    return [value for k, value in sections.get(section, []) if k == key]


def unit_files(name: str) -> list[Path]:
    """The file of unit `name` (its template for an instance), then its drop-ins."""
    prefix, at, _ = name.partition("@")
    main = UNITS / (f"{prefix}@.service" if at else name)
    assert main.exists(), f"{name}: no {main.relative_to(PROJECT_DIR)}"
    return [main, *sorted((UNITS / f"{name}.d").glob("*.conf"))]


def wanted_units() -> list[str]:
    target = parse_unit(UNITS / TARGET)
    return [name for line in values(target, "Unit", "Wants") for name in line.split()]


def unit_command(name: str) -> Command:
    """The command unit `name` runs, as the guide would write it: specifiers and ${VAR}
    expanded (Environment= of the unit and its drop-ins, the later ones winning), and the
    interpreter relative to WorkingDirectory."""
    sections = parse_unit(*unit_files(name))
    environment: dict[str, str] = {}
    for line in values(sections, "Service", "Environment"):
        environment.update(assignment(word) for word in shlex.split(line))
    (exec_start,) = values(sections, "Service", "ExecStart")
    (directory,) = values(sections, "Service", "WorkingDirectory")
    instance = name.partition("@")[2].removesuffix(".service")

    def specifier(match: re.Match[str]) -> str:
        # Any other would be expanded by systemd (%h: the user's home), not by Celery.
        expanded = {"i": instance, "%": "%"}.get(match.group(1))
        assert expanded is not None, f"{name}: systemd expands {match.group(0)}; escape it as %%"
        return expanded

    line = re.sub(r"%(.)", specifier, exec_start)
    line = re.sub(r"\$\{(\w+)\}", lambda m: environment.pop(m.group(1)), line)
    argv = shlex.split(line)
    argv[0] = os.path.relpath(argv[0], directory)
    return Command(tuple(sorted(environment.items())), tuple(argv))


def guide_commands() -> list[Command]:
    """The command block of "Start the processes", leading VAR=value words as environment."""
    section = GUIDE.read_text().split("## Start the processes", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None, "docs/operations.md: no command block under Start the processes"
    commands = []
    for line in block.group(1).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        words = shlex.split(line)
        assignments = [w for w in words if re.fullmatch(r"[A-Z_]+=\S*", w)]
        environment = tuple(sorted(assignment(word) for word in assignments))
        commands.append(Command(environment, tuple(words[len(assignments) :])))
    return commands


def test_the_target_starts_a_unit_for_every_command_of_the_guide() -> None:
    commands = guide_commands()
    assert len(commands) == 5  # web, a worker per queue (critical, notify, bulk), beat
    units = wanted_units()
    started = {name: unit_command(name) for name in units}
    missing = [c for c in commands if c not in started.values()]
    assert missing == [], f"no unit of {TARGET} runs these: {missing}\nthe units run: {started}"
    assert len(units) == len(commands), f"{TARGET} wants units the guide does not run: {units}"


def test_every_unit_is_restarted_and_run_as_the_guide_says() -> None:
    for name in wanted_units():
        sections = parse_unit(*unit_files(name))
        service = dict(sections["Service"])
        assert service["Restart"] == "always", name
        assert service["RestartSec"] == "1", name
        assert service["User"] == "encore", name
        assert service["WorkingDirectory"] == f"{INSTALLED}/src", name
        assert values(sections, "Service", "EnvironmentFile") == ["/etc/encore.env"], name
        assert values(sections, "Unit", "PartOf") == [TARGET], name  # stopped with it
        # The default start limit would end the restarts after 5 quick ones.
        assert values(sections, "Unit", "StartLimitIntervalSec") == ["0"], name
    installed = parse_unit(UNITS / TARGET)
    assert values(installed, "Install", "WantedBy") == ["multi-user.target"]


def test_systemd_accepts_the_units(tmp_path: Path) -> None:
    verify = shutil.which("systemd-analyze")
    if verify is None:
        pytest.skip("systemd-analyze is not installed (apt: systemd)")
    # A copy whose interpreter exists here: verify checks that ExecStart is executable.
    shutil.copytree(UNITS, tmp_path, dirs_exist_ok=True)
    for unit in tmp_path.glob("*.service"):
        unit.write_text(unit.read_text().replace(f"{INSTALLED}/.venv/bin/python", sys.executable))
    names = [TARGET, *wanted_units()]
    done = subprocess.run(
        [verify, "verify", "--man=no", *(str(tmp_path / name) for name in names)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # Unknown keys and bad values are only warnings: any line about our units fails.
    ours = [line for line in done.stderr.splitlines() if str(tmp_path) in line or "encore" in line]
    assert done.returncode == 0 and ours == [], done.stderr
