"""Routing, one table: time-critical database work on `critical`, time-critical channel
sends on `notify`, everything else on `bulk`."""

import pytest

from encore.celery import app

CRITICAL = {
    "events.process_waitlist_for_event",
    "events.send_waitlist_offer_notification",
    "events.resend_waitlist_offer_notifications",
    "events.expire_waitlist_offers",
    "events.expire_event_offers",
    "events.nudge_open_waitlists",
    "events.send_offer_expired_notifications",
    "common.flush_outbox",
    # After the broker came back empty (common.broker): database work only.
    "common.check_broker",
    "events.recover_lost_waitlist_tasks",
    "events.resend_lost_rsvp_confirmations",
    "notifications.redispatch_pending_deliveries",
}
#: Waits on a network peer (a mail server), so never on `critical`.
NOTIFY = {"notifications.deliver_critical"}
PROJECT_APPS = ("common.", "accounts.", "notifications.", "events.")


def queue_of(task_name: str) -> str:
    route = app.amqp.router.route({}, task_name)
    return str(route["queue"].name)


def project_tasks() -> list[str]:
    app.loader.import_default_modules()
    return sorted(name for name in app.tasks if name.startswith(PROJECT_APPS))


def test_time_critical_tasks_go_to_critical_or_notify_and_every_other_task_to_bulk() -> None:
    names = project_tasks()
    assert set(names) >= CRITICAL | NOTIFY, "a task of the routing table was renamed"
    routed = {name: queue_of(name) for name in names}
    assert {name for name, queue in routed.items() if queue == "critical"} == CRITICAL
    assert {name for name, queue in routed.items() if queue == "notify"} == NOTIFY
    assert {queue for name, queue in routed.items() if name not in CRITICAL | NOTIFY} == {"bulk"}
    assert queue_of("notifications.deliver") == "bulk"
    assert queue_of("accounts.send_password_reset") == "bulk"
    assert queue_of("accounts.send_registration_notice") == "bulk"  # a future accounts task


def test_an_unnamed_task_defaults_to_bulk_and_a_plain_worker_consumes_all_three() -> None:
    assert queue_of("somewhere.new_task") == "bulk"
    # `celery worker` without -Q consumes every declared queue.
    assert set(app.amqp.queues) == {"critical", "notify", "bulk"}


@pytest.mark.parametrize("name", ["notifications.deliver", "notifications.deliver_critical"])
def test_delivery_tasks_have_time_limits(name: str) -> None:
    project_tasks()
    task = app.tasks[name]
    assert task.soft_time_limit is not None and task.time_limit is not None
    assert 0 < task.soft_time_limit < task.time_limit <= 120
