"""No secret in the repository: a key found in it signs nothing, production needs its own.

The production checks start `manage.py` in a fresh process with a clean environment, as
an operator would: the settings are read at import, so only a new process shows what a
start does.
"""

import os
import re
import stat
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt
import pytest
from django.conf import settings

from accounts.tests.factories import make_user
from encore.settings.secret_key import KNOWN_PUBLIC_KEYS

REPO = Path(settings.PROJECT_DIR)
SRC = Path(settings.SRC_DIR)
OLD_DEFAULT = "encore-insecure-development-key-change-me-in-production"
# `SECRET_KEY = "..."`, `DJANGO_SECRET_KEY=...`, `"SIGNING_KEY": "..."` anywhere in the tree.
KEY_ASSIGNMENT = re.compile(
    r"""(?:SECRET_KEY|SIGNING_KEY)["']?\s*[:=,]\s*["']?([^\s"'),]{4,})""", re.IGNORECASE
)


def repository_files() -> list[Path]:
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    return [REPO / name.decode() for name in tracked if name]


def keys_written_in_the_repository() -> set[str]:
    found = set(KNOWN_PUBLIC_KEYS) | {OLD_DEFAULT}
    for path in repository_files():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        found |= set(KEY_ASSIGNMENT.findall(text))
    return found


def forged_access_token(user_id: uuid.UUID, key: str) -> str:
    now = datetime.now(UTC)
    claims = {
        "token_type": "access",
        "exp": now + timedelta(minutes=5),
        "iat": now,
        "jti": uuid.uuid4().hex,
        "user_id": str(user_id),
    }
    return jwt.encode(claims, key, algorithm="HS256")


def production_env(**overrides: str) -> dict[str, str]:
    """A clean production environment: no DEBUG, no key unless given."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "CACHE_URL", "PYTEST", "LOG_"))
    }
    env["DJANGO_SETTINGS_MODULE"] = "encore.settings"
    env.update(overrides)
    return env


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=SRC,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.django_db
@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
def test_a_token_signed_with_any_key_found_in_the_repository_is_refused(api) -> None:
    owner = make_user()
    keys = keys_written_in_the_repository()
    assert OLD_DEFAULT in keys  # the scan finds what it must (tests mention it)

    client = api(None).client
    genuine = forged_access_token(owner.pk, settings.SECRET_KEY)
    me = client.get("/api/me", headers={"Authorization": f"Bearer {genuine}"})
    assert me.status_code == 200  # a correctly signed token of this shape works

    for key in sorted(keys):
        token = forged_access_token(owner.pk, key)
        response = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401, f"a token signed with {key!r} was accepted"


def test_env_example_carries_no_usable_secret() -> None:
    values = dict(
        line.split("=", 1)
        for line in (REPO / ".env.example").read_text().splitlines()
        if "=" in line and not line.lstrip().startswith("#")
    )
    assert values["DJANGO_SECRET_KEY"] == ""
    assert values["DJANGO_DEBUG"] == "false"


@pytest.mark.own_processes
@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({"DJANGO_DEBUG": "false"}, id="DJANGO_DEBUG=false"),
        pytest.param({}, id="DJANGO_DEBUG unset"),
        pytest.param({"DJANGO_SECRET_KEY": OLD_DEFAULT}, id="the old default key"),
    ],
)
def test_a_production_start_without_its_own_key_refuses_with_a_clear_message(overrides) -> None:
    done = manage(
        "check", env=production_env(DJANGO_ALLOWED_HOSTS="encore.example.org", **overrides)
    )

    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "DJANGO_SECRET_KEY" in done.stderr


@pytest.mark.own_processes
def test_a_production_start_without_allowed_hosts_refuses() -> None:
    done = manage("check", env=production_env(DJANGO_SECRET_KEY="k" * 60))

    assert done.returncode != 0
    assert "DJANGO_ALLOWED_HOSTS is not set" in done.stderr


@pytest.mark.own_processes
def test_check_deploy_passes_in_the_production_configuration(tmp_path: Path) -> None:
    env = production_env(
        DJANGO_SECRET_KEY=f"prod-{uuid.uuid4().hex}{uuid.uuid4().hex}",
        DJANGO_ALLOWED_HOSTS="encore.example.org",
        CACHE_URL="redis://127.0.0.1:6379/1",
        ENCORE_VAR_DIR=str(tmp_path),
        SQLITE_PATH=str(tmp_path / "db.sqlite3"),
    )
    done = manage("check", "--deploy", "--fail-level", "WARNING", env=env)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


@pytest.mark.own_processes
def test_check_deploy_warns_about_a_per_process_cache_in_production(tmp_path: Path) -> None:
    env = production_env(
        DJANGO_SECRET_KEY=f"prod-{uuid.uuid4().hex}{uuid.uuid4().hex}",
        DJANGO_ALLOWED_HOSTS="encore.example.org",
        ENCORE_VAR_DIR=str(tmp_path),
        SQLITE_PATH=str(tmp_path / "db.sqlite3"),
    )
    done = manage("check", "--deploy", env=env)

    assert "encore.W001" in done.stderr + done.stdout


@pytest.mark.own_processes
def test_development_generates_a_private_key_once_and_keeps_it(tmp_path: Path) -> None:
    env = production_env(
        DJANGO_DEBUG="true", ENCORE_VAR_DIR=str(tmp_path), SQLITE_PATH=str(tmp_path / "db")
    )
    show_key = ["shell", "-c", "from django.conf import settings; print(settings.SECRET_KEY)"]

    first, second = manage(*show_key, env=env), manage(*show_key, env=env)

    assert first.returncode == 0, first.stderr
    key = first.stdout.split()[-1]
    assert len(key) >= 50 and key not in keys_written_in_the_repository()
    assert second.stdout.split()[-1] == key
    key_file = tmp_path / "secret_key"
    assert key_file.read_text().strip() == key
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


@pytest.mark.own_processes
def test_a_command_starts_before_the_metrics_directory_exists(tmp_path: Path) -> None:
    """Any process may be the host's first (a `migrate` before gunicorn made the directory):
    the metric files' directory is created, not a FileNotFoundError at import."""
    metrics_dir = tmp_path / "fresh" / "prometheus"
    env = production_env(
        DJANGO_SECRET_KEY=f"prod-{uuid.uuid4().hex}{uuid.uuid4().hex}",
        DJANGO_ALLOWED_HOSTS="encore.example.org",
        ENCORE_VAR_DIR=str(tmp_path),
        SQLITE_PATH=str(tmp_path / "db.sqlite3"),
        PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
    )
    done = manage("shell", "-c", "import common.metrics", env=env)

    assert done.returncode == 0, done.stdout + done.stderr
    assert metrics_dir.is_dir()
