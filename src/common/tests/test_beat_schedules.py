"""The one way migrations write beat schedules: idempotent, UTC, reversible."""

import pytest
from django.apps import apps
from django_celery_beat.models import PeriodicTask, PeriodicTasks

from common.beat_schedules import schedule_task, unschedule_tasks

pytestmark = pytest.mark.django_db

NAME = "Ping (test schedule)"


def test_scheduling_twice_keeps_one_task_on_the_latest_crontab() -> None:
    schedule_task(apps, name=NAME, task="common.ping", minute="7")
    schedule_task(apps, name=NAME, task="common.ping", minute="8", hour="3")

    [task] = PeriodicTask.objects.select_related("crontab").filter(name=NAME)
    assert task.enabled and task.task == "common.ping"
    assert (task.crontab.minute, task.crontab.hour, str(task.crontab.timezone)) == ("8", "3", "UTC")


def test_unscheduling_removes_the_task_and_tells_a_running_beat() -> None:
    schedule_task(apps, name=NAME, task="common.ping", minute="7")
    before = PeriodicTasks.objects.get(ident=1).last_update

    unschedule_tasks(apps, NAME)

    assert not PeriodicTask.objects.filter(name=NAME).exists()
    assert PeriodicTasks.objects.get(ident=1).last_update > before
