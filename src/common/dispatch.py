"""The one way out of a transaction: send a Celery task by its pinned name.

Every service that wants work done elsewhere (a waitlist pass, a notification, an e-mail)
calls `after_commit("events.process_waitlist_for_event", str(event.pk))`, never a task
module: services sit below tasks (tasks are thin shims that call services), so a service
naming a task object would tie the two into an import circle. The name is the contract,
pinned with `@shared_task(name=...)`; `src/common/tests/test_dispatch.py` proves every
name sent from `src/` is a registered task, and `send` refuses an unknown one at once.

What a dispatch promises:
- after the caller's transaction commits (at once outside one; Django's `on_commit`), so
  a rolled-back change sends nothing and a worker never reads rows not yet committed;
- a broker that refuses the publish (it is down) costs the caller nothing: the call is
  kept in the outbox (`common.outbox`) and the every-minute flush publishes it later.
  Anything else going wrong in the publish (an eager task's own error, in development
  and tests) is logged, never raised into the committed request; the recovery jobs
  (the waitlist nudge, the stranded-delivery sweep, the lost-notification resend) are
  the net for what is lost;
- at least once: a task sent this way must be idempotent or harmless when repeated.

`now(...)` is the same for a caller with nothing to wait for: it already runs after a
commit, or writes nothing (a password-reset request).

`after_commit(..., eta=when)` asks the worker to run the task no sooner than `when` (a
waitlist offer's deadline, ADR 0019). The publish goes out after commit like any other
(the worker holds the message until then), by `send_later`; a refused one is kept in the
outbox *without* its ETA (the outbox has no column for it), so the flush publishes it to
run at once. A task sent with an ETA must therefore be harmless when it runs early: it
carries its own due time in its arguments and sends itself again for what is left. An
eager app (tests, `CELERY_TASK_ALWAYS_EAGER`) runs tasks in the caller at once and has no
clock to wait on: a future ETA there is not run (logged), and the recovery jobs stand in.

`call_after_commit(what, function)` is the in-process door, for work too small for a
task (one person's confirmation, a digest the daily job already runs in a worker): the
same timing, and a failure logged with `what`, never raised. No module of `src/` calls
`transaction.on_commit` but this one (`test_dispatch.py` checks).
"""

import functools
import json
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from celery import current_app
from django.db import transaction
from django.utils import timezone

from common import outbox

logger = logging.getLogger("encore.dispatch")


def after_commit(
    task_name: str,
    *args: Any,
    queue: str | None = None,
    eta: datetime | None = None,
    **kwargs: Any,
) -> None:
    """Send `task_name(*args, **kwargs)` once the current transaction commits. `queue`
    overrides the task's route (CELERY_TASK_ROUTES) for this call; `eta` (aware) asks the
    worker not to run it before then (see the module doc: early runs must be harmless).
    The arguments must be JSON data; that and the name are checked now, where a mistake
    is the caller's bug."""
    _check_registered(task_name)
    plain_args, plain_kwargs = _plain(args, kwargs)
    if eta is None:
        transaction.on_commit(
            lambda: send(task_name, plain_args, plain_kwargs, queue or ""), robust=True
        )
        return
    if timezone.is_naive(eta):
        raise ValueError("an ETA must be an aware datetime")
    transaction.on_commit(
        lambda: send_later(task_name, plain_args, plain_kwargs, queue or "", eta), robust=True
    )


def after_commit_each(task_name: str, calls: Sequence[tuple[Any, ...]]) -> None:
    """`after_commit(task_name, *args)` for each tuple of `calls`, behind one commit hook:
    a batch of fifty offers registers one callback, not fifty (docs/spec/quality.md a1-a3). Each
    publish is still its own, kept in the outbox on its own when the broker refuses it."""
    _check_registered(task_name)
    # One JSON round trip for the batch: the same plain values as `_plain` per call.
    plain: list[list[Any]] = json.loads(json.dumps([list(args) for args in calls]))

    def send_each() -> None:
        for args in plain:
            send(task_name, args, {}, "")

    transaction.on_commit(send_each, robust=True)


def call_after_commit(what: str, function: Callable[[], object], **extra: str) -> None:
    """Run `function()` in this process once the transaction commits (at once outside
    one); an exception is logged as "<what> failed" (with `extra`) and swallowed: the
    change is committed."""

    def run() -> None:
        try:
            function()
        except Exception:
            logger.exception("%s failed", what, extra=extra)

    transaction.on_commit(run, robust=True)


def now(task_name: str, *args: Any, queue: str | None = None, **kwargs: Any) -> bool:
    """Send now; True when the broker took it (False: kept in the outbox, or logged)."""
    _check_registered(task_name)
    plain_args, plain_kwargs = _plain(args, kwargs)
    return send(task_name, plain_args, plain_kwargs, queue or "")


def send(task_name: str, args: list[Any], kwargs: dict[str, Any], queue: str) -> bool:
    """The publish itself: what tests replace to record dispatches instead of sending."""
    try:
        return outbox.publish_or_keep(task_name, args, kwargs, queue)
    except Exception:
        logger.exception("could not dispatch a task", extra={"task": task_name})
        return False


def send_later(
    task_name: str, args: list[Any], kwargs: dict[str, Any], queue: str, eta: datetime
) -> bool:
    """The publish of a task with an ETA: what tests replace to record scheduled tasks.

    Apart from `send` so that every recorder of `send` keeps its four arguments. In an
    eager app a future ETA is not run: there is no broker to hold it (module doc).
    """
    if current_app.conf.task_always_eager and eta > timezone.now():
        logger.debug("eager app: a task with a future ETA is not run", extra={"task": task_name})
        return False
    try:
        return outbox.publish_or_keep(task_name, args, kwargs, queue, eta=eta)
    except Exception:
        logger.exception("could not dispatch a task", extra={"task": task_name})
        return False


def is_registered(task_name: str) -> bool:
    """Whether a task of that name exists. The first ask imports every app's `tasks`
    module (Celery's lazy autodiscovery), at run time, not at import time: a service never
    imports a task module, and the outbox publishes by name alone."""
    if task_name not in current_app.tasks:
        # One thread discovers, the others wait for it: a thread arriving while the
        # import is under way would find the registry half filled (seen with 60 claimers
        # finishing at once outside a transaction, ADR 0022).
        with _DISCOVERY:
            _discover_tasks()
    return task_name in current_app.tasks


_DISCOVERY = threading.Lock()


@functools.cache
def _discover_tasks() -> None:
    current_app.loader.import_default_modules()


def _check_registered(task_name: str) -> None:
    if not is_registered(task_name):
        raise LookupError(f"no Celery task is registered as {task_name!r}")


def _plain(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    return json.loads(json.dumps(list(args))), json.loads(json.dumps(kwargs))
