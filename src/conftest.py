"""Project-wide pytest fixtures: settings for tests, an API client, marker handling."""

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from ninja_jwt.tokens import RefreshToken

from accounts.models import User
from accounts.tests.factories import make_user
from common.tests.dispatch_recorder import sent_tasks

__all__ = ["sent_tasks"]  # a fixture, imported for pytest


#: Tests that start processes, a worker or a browser, or run for minutes.
LONG_MARKERS = ("long", "own_processes", "worker", "browser")


def _transactional(item: pytest.Item) -> bool:
    marker = item.get_closest_marker("django_db")
    fixtures = getattr(item, "fixturenames", ())
    return bool(marker and marker.kwargs.get("transaction")) or bool(
        {"transactional_db", "live_server"} & set(fixtures)
    )


class LongFirst:
    """The long tests first among the transactional ones (a plugin: a conftest holds one
    `pytest_collection_modifyitems`, and this one must run after pytest-django's).

    Groups are handed out in collection order, so files that start processes or a
    browser would otherwise land at the end of a parallel run, one test process busy and
    the others idle. pytest-django runs the tests that roll back before those that flush
    the database (a flush empties the rows data migrations wrote); a long test moves to
    the front of its kind, never before a test of the first kind.
    """

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        long = [item for item in items if any(item.get_closest_marker(m) for m in LONG_MARKERS)]
        chosen = set(long)
        rest = [item for item in items if item not in chosen]
        first = next((i for i, item in enumerate(rest) if _transactional(item)), len(rest))
        flushing = [item for item in long if _transactional(item)]
        rolling = [item for item in long if not _transactional(item)]
        items[:] = rolling + rest[:first] + flushing + rest[first:]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend-dependent",
        action="store_true",
        help="only the tests whose outcome the database backend can change (CI's SQLite run)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(LongFirst(), "encore-long-first")


#: Tests the backend under the suite cannot change: they start Encore in processes of
#: their own, or check what the browser does with pages whose server side the page tests
#: check on both backends.
BACKEND_FREE_MARKERS = ("own_processes", "browser")


def backend_dependent(item: pytest.Item) -> bool:
    """True when the test reads or writes the suite's database in this process: the
    backend can change its outcome. The others run once, on the PostgreSQL run."""
    if any(item.get_closest_marker(m) for m in BACKEND_FREE_MARKERS):
        return False
    fixtures = set(getattr(item, "fixturenames", ()))
    return item.get_closest_marker("django_db") is not None or "_django_db_helper" in fixtures


def _keep_backend_dependent(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept = [item for item in items if backend_dependent(item)]
    if len(kept) < len(items):
        chosen = set(kept)
        config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
        items[:] = kept


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A file's tests share one test process; PostgreSQL-only tests skip on SQLite;
    `--backend-dependent` keeps only the tests the backend can change.

    Under `make test` (pytest-xdist, `--dist loadgroup`) each file is a group, so its
    module fixtures (a private stack, a browser) start once; a test marked
    `xdist_group(name)` keeps its own group instead (a long file split over processes,
    or files that must share one). Tests that need PostgreSQL are skipped on SQLite, with
    the reason (never on the PostgreSQL run).
    """
    if config.getoption("backend_dependent"):
        _keep_backend_dependent(config, items)
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    skip = pytest.mark.skip(
        reason="needs PostgreSQL (row locks, concurrent connections); set DATABASE_URL"
    )
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _test_settings(settings: Any) -> None:
    settings.THROTTLE_ENABLED = False
    # Full-strength hashing is slow by design and every test user pays it; tests need no
    # real secrecy.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from encore.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    # A broker or cache that failed in one test is asked again in the next (common.circuit).
    from common import outbox, rate_limit

    outbox.BROKER.reset()
    rate_limit.CACHE.reset()


class ApiClient:
    """A thin JSON client for `/api`, optionally authenticated with a real JWT."""

    def __init__(self, user: User | None = None) -> None:
        self.client = Client()
        self.user = user
        self.headers: dict[str, str] = {}
        if user is not None:
            token = RefreshToken.for_user(user)  # type: ignore[misc]
            self.headers["Authorization"] = f"Bearer {token.access_token}"

    def _call(self, method: str, path: str, data: Any = None, **params: Any) -> Any:
        url = path if path.startswith("/api") else f"/api{path}"
        kwargs: dict[str, Any] = {"headers": self.headers}
        if method == "get":
            return self.client.get(url, data=data or params or None, **kwargs)
        body = json.dumps(data) if data is not None else ""
        return getattr(self.client, method)(
            url, data=body, content_type="application/json", **kwargs
        )

    def get(self, path: str, data: Any = None, **params: Any) -> Any:
        return self._call("get", path, data, **params)

    def post(self, path: str, data: Any = None) -> Any:
        return self._call("post", path, data)

    def patch(self, path: str, data: Any = None) -> Any:
        return self._call("patch", path, data)

    def put(self, path: str, data: Any = None) -> Any:
        return self._call("put", path, data)

    def delete(self, path: str, data: Any = None) -> Any:
        return self._call("delete", path, data)


@pytest.fixture
def api() -> Callable[[User | None], ApiClient]:
    """`api(user)` → a client authenticated as `user`; `api(None)` → anonymous."""
    return ApiClient


@pytest.fixture
def user(db: None) -> User:
    return make_user()


@pytest.fixture
def is_postgres() -> bool:
    return connection.vendor == "postgresql"


def pytest_sessionstart(session: pytest.Session) -> None:
    """On the CI PostgreSQL run, refuse to silently fall back to SQLite."""
    import os

    if os.environ.get("REQUIRE_POSTGRES") and not settings.DATABASES["default"]["ENGINE"].endswith(
        "postgresql"
    ):
        raise pytest.UsageError(
            "REQUIRE_POSTGRES is set but DATABASE_URL does not point at PostgreSQL"
        )


# -- CI guard: tests that must run on the CI run may not skip there ----------------------
# Each marker names the environment variable that says "this run has what they need";
# `.ci/run` sets them on the PostgreSQL run. A skip of such a test then fails the run,
# whatever caused it (a fixture, a pytest.skip() inside, a missing broker).
REQUIRED_MARKERS = {
    "postgres": "REQUIRE_POSTGRES",
    "worker": "REQUIRE_WORKER",
    "browser": "REQUIRE_BROWSER",
}
_skipped_but_required: list[str] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.skipped and not hasattr(report, "wasxfail"):
        import os

        for marker, variable in REQUIRED_MARKERS.items():
            if item.get_closest_marker(marker) and os.environ.get(variable):
                _skipped_but_required.append(f"{item.nodeid} [{marker}; {variable} is set]")
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _skipped_but_required and exitstatus in (
        pytest.ExitCode.OK,
        pytest.ExitCode.NO_TESTS_COLLECTED,
    ):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _skipped_but_required:
        terminalreporter.section("skipped although this run requires them", red=True)
        for line in _skipped_but_required:
            terminalreporter.write_line(line)
