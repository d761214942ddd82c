"""`dispatch.after_commit(..., eta=...)`: published after commit with the ETA; a refused
one is kept in the outbox without it (the task must be harmless early, ADR 0019); an
eager app does not run a task whose ETA lies ahead; a naive ETA is refused at the call."""

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from celery import current_app
from django.db import transaction
from django.utils import timezone

from common import dispatch, outbox
from common.models import OutboxMessage
from common.tests.broker_stub import Broker, broker

__all__ = ["broker"]  # a fixture, imported for pytest

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def not_eager() -> Iterator[None]:
    """A worker's broker stands behind the stub: the app is not eager."""
    current_app.conf.task_always_eager = False
    try:
        yield
    finally:
        current_app.conf.task_always_eager = True


def test_the_eta_goes_out_with_the_publish_after_commit(broker: Broker, not_eager: None) -> None:
    when = timezone.now() + timedelta(minutes=5)
    with transaction.atomic():
        dispatch.after_commit("common.ping", "later", eta=when, queue="critical")
        assert broker.published == []
    assert broker.published == [(["later"], {"queue": "critical", "eta": when})]


def test_a_refused_eta_publish_is_kept_and_flushed_to_run_at_once(
    broker: Broker, not_eager: None
) -> None:
    broker.down = True
    dispatch.after_commit("common.ping", "kept", eta=timezone.now() + timedelta(minutes=5))
    kept = OutboxMessage.objects.get()
    assert (kept.task_name, kept.args) == ("common.ping", ["kept"])

    broker.down = False
    assert outbox.flush().published == 1
    assert broker.published == [(["kept"], {})]  # no ETA: the task itself must cope


def test_an_eager_app_does_not_run_a_task_whose_eta_lies_ahead(broker: Broker) -> None:
    dispatch.after_commit("common.ping", "ahead", eta=timezone.now() + timedelta(minutes=5))
    dispatch.after_commit("common.ping", "due", eta=timezone.now() - timedelta(seconds=1))
    assert [args for args, _ in broker.published] == [["due"]]


def test_a_naive_eta_is_refused_at_the_call(broker: Broker) -> None:
    with pytest.raises(ValueError):
        dispatch.after_commit("common.ping", "x", eta=datetime(2031, 1, 1, 12, 0))
    assert broker.published == []
