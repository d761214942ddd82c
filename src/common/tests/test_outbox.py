"""The outbox: a task the broker refused is kept and published once it is back, once."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from common import outbox
from common.models import OutboxMessage
from common.tasks import ping
from common.tests.broker_stub import Broker, broker

__all__ = ["broker"]  # a fixture, imported for pytest

pytestmark = pytest.mark.django_db


def test_published_at_once_when_the_broker_is_up(broker: Broker) -> None:
    assert outbox.publish_or_keep(ping.name, ["a"], {"n": 1})
    assert broker.published == [(["a"], {"n": 1})]
    assert not OutboxMessage.objects.exists()


def test_a_refused_task_is_kept_then_published_once_in_order(broker: Broker) -> None:
    broker.down = True
    assert not outbox.publish_or_keep(ping.name, ["first"], {})
    assert not outbox.publish_or_keep(ping.name, ["second"], {}, "critical")

    assert outbox.flush() == outbox.FlushResult(published=0, waiting=2)
    broker.down = False
    assert outbox.flush() == outbox.FlushResult(published=2, waiting=0)
    assert outbox.flush() == outbox.FlushResult()

    assert broker.published == [(["first"], {}), (["second"], {"queue": "critical"})]
    kept = OutboxMessage.objects.order_by("created_at")
    assert [(m.task_name, m.attempts, m.sent_at is not None) for m in kept] == [
        ("common.ping", 3, True),  # refused at enqueue, by the first flush; then published
        ("common.ping", 2, True),  # the first flush stopped before it
    ]


def test_old_rows_are_tidied_and_a_day_old_unsent_one_dropped(broker: Broker) -> None:
    broker.down = True
    with time_machine.travel(timezone.now() - timedelta(hours=25)):
        outbox.publish_or_keep(ping.name, ["too late"], {})
    broker.down = False
    outbox.BROKER.reset()  # back: asked again at once, not after the pause (common.circuit)
    with time_machine.travel(timezone.now() - timedelta(hours=30)):
        outbox.publish_or_keep(ping.name, ["fine"], {})  # published: no row
    assert outbox.flush() == outbox.FlushResult(dropped=1)
    assert broker.published == [(["fine"], {})]
    assert not OutboxMessage.objects.exists()


def test_the_flush_runs_every_minute() -> None:
    from django_celery_beat.models import PeriodicTask

    periodic = PeriodicTask.objects.select_related("crontab").get(task="common.flush_outbox")
    assert periodic.enabled and periodic.crontab.minute == "*"
