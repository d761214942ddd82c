"""The dispatch seam: tasks leave by name after commit, a refusal is kept, an unknown
name or a non-JSON argument is refused at the call, and every name `src/` sends exists."""

import ast
import logging
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction

from common import dispatch
from common.models import OutboxMessage
from common.tests.broker_stub import Broker, broker

__all__ = ["broker"]  # a fixture, imported for pytest

pytestmark = pytest.mark.django_db(transaction=True)

SRC = Path(__file__).resolve().parents[2]
SEAM = {"after_commit", "after_commit_each", "now"}


def test_sent_only_once_the_transaction_commits(broker: Broker) -> None:
    with transaction.atomic():
        dispatch.after_commit("common.ping", "later", queue="critical")
        assert broker.published == []
    assert broker.published == [(["later"], {"queue": "critical"})]


def test_a_rolled_back_transaction_sends_nothing(broker: Broker) -> None:
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        dispatch.after_commit("common.ping", "never")
        _ = 1 / 0
    assert broker.published == []
    assert not OutboxMessage.objects.exists()


def test_a_refused_send_is_kept_for_the_flush_and_the_caller_goes_on(broker: Broker) -> None:
    broker.down = True
    with transaction.atomic():
        dispatch.after_commit("common.ping", "kept")
    assert not dispatch.now("common.ping", "kept too")
    assert list(OutboxMessage.objects.order_by("created_at").values_list("task_name", "args")) == [
        ("common.ping", ["kept"]),
        ("common.ping", ["kept too"]),
    ]


def test_any_other_failure_is_logged_not_raised(
    broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    broker.broken = True
    with caplog.at_level(logging.ERROR, logger="encore.dispatch"):
        assert not dispatch.now("common.ping")
    assert "could not dispatch a task" in caplog.text


def test_an_unknown_name_or_a_non_json_argument_is_refused_at_the_call(broker: Broker) -> None:
    with pytest.raises(LookupError):
        dispatch.after_commit("events.no_such_task", "x")
    with pytest.raises(TypeError):
        dispatch.after_commit("common.ping", object())
    assert broker.published == []


def test_eager_mode_runs_the_task_in_process() -> None:
    """Tests and `make run` without a broker run tasks eagerly through the same seam: the
    flush sent by name runs here and publishes the message kept for it."""
    kept = OutboxMessage.objects.create(task_name="common.ping", args=[], kwargs={}, attempts=1)
    assert dispatch.now("common.flush_outbox")
    kept.refresh_from_db()
    assert kept.sent_at is not None


def _seam_calls() -> list[tuple[str, ast.Call]]:
    calls = []
    for path in SRC.rglob("*.py"):
        if "tests" in path.parts or "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in SEAM
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "dispatch"
            ):
                calls.append((str(path.relative_to(SRC)), node))
    return calls


def test_a_batch_is_sent_call_by_call_after_the_commit_only(broker: Broker) -> None:
    with transaction.atomic():
        dispatch.after_commit_each("common.ping", [("a",), ("b",)])
        assert broker.published == []
    assert broker.published == [(["a"], {}), (["b"], {})]

    with pytest.raises(ZeroDivisionError), transaction.atomic():
        dispatch.after_commit_each("common.ping", [("c",)])
        _ = 1 / 0
    assert len(broker.published) == 2
    with pytest.raises(LookupError):
        dispatch.after_commit_each("events.no_such_task", [("x",)])


def test_every_name_sent_from_src_is_a_registered_task() -> None:
    calls = _seam_calls()
    assert len(calls) >= 10  # the scan sees the callers (waitlist, series, mail, ...)
    problems = []
    for where, call in calls:
        first = call.args[0] if call.args else None
        if where == "common/broker.py":
            # Sends the recovery tasks the settings list, each checked here instead.
            problems += [
                f"settings name unknown task {name!r}"
                for name in settings.RECOVERY_TASKS_AFTER_BROKER_LOSS
                if not dispatch.is_registered(name)
            ]
            continue
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            problems.append(f"{where}:{call.lineno} names its task with an expression")
        elif not dispatch.is_registered(first.value):
            problems.append(f"{where}:{call.lineno} sends unknown task {first.value!r}")
    assert problems == []


def test_nothing_outside_tasks_modules_publishes_a_task_itself() -> None:
    """`.delay`/`.apply_async` belong to the seam (via the outbox) and to tasks that retry."""
    allowed = {"common/outbox.py"}
    found = []
    for path in SRC.rglob("*.py"):
        rel = str(path.relative_to(SRC))
        if "tests" in path.parts or "migrations" in path.parts or rel in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in {"delay", "apply_async"}:
                found.append(f"{rel}:{node.lineno}")
    assert found == []


def test_only_the_seam_registers_after_commit_work() -> None:
    """Every "after the commit" of `src/` goes through `common.dispatch`, so its promise
    (nothing for a rollback, a failure logged not raised) holds everywhere."""
    found = []
    for path in SRC.rglob("*.py"):
        rel = str(path.relative_to(SRC))
        if "tests" in path.parts or "migrations" in path.parts or rel == "common/dispatch.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "on_commit":
                found.append(f"{rel}:{node.lineno}")
    assert found == []
