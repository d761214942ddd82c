"""After the broker came back empty, the waitlist publishes again what it lost (ADR 0037):
a pass for every open queue, every pending offer's expiry, every unannounced offer.

The regular nets would take up to an hour (the nudge, the sweep) or 10 minutes (the
resend); the recovery task does it at once."""

from datetime import timedelta
from typing import Any

import pytest
import time_machine

from common.tests.dispatch_recorder import SentTasks
from events.waitlist.services import notifications as waitlist_notifications
from events.waitlist.tasks import recover_lost_waitlist_tasks_task
from events.waitlist.tests.rotation_support import ScheduledTasks, scheduled  # noqa: F401
from events.waitlist.tests.waitlist_builders import T0, active_event, give_offer, queue_in_order

pytestmark = pytest.mark.django_db


def test_every_pending_offer_and_open_queue_is_taken_up_again(
    sent_tasks: SentTasks,
    scheduled: ScheduledTasks,  # noqa: F811
    django_capture_on_commit_callbacks: Any,
) -> None:
    offering, freed = active_event(2), active_event(3, attendees=1)
    with time_machine.travel(T0, tick=False):
        early, late = queue_in_order(offering, 2)
        give_offer(offering, early, expires_at=T0 + timedelta(minutes=30))
        give_offer(offering, late, expires_at=T0 + timedelta(hours=2))
        queue_in_order(freed, 1)
    a_minute_later = T0 + timedelta(minutes=1)
    with time_machine.travel(a_minute_later, tick=False):
        assert waitlist_notifications.lost_offer_notifications(a_minute_later) == []
        with django_capture_on_commit_callbacks(execute=True):
            counts = recover_lost_waitlist_tasks_task()

    # One expiry per event with pending offers, at its earliest deadline.
    assert [(s.args[0], s.due) for s in scheduled.expiries()] == [
        (str(offering.pk), T0 + timedelta(minutes=30))
    ]
    # Offers a minute old that nobody was told of are announced now, not 10 minutes later.
    assert len(sent_tasks.named("events.send_waitlist_offer_notification")) == 2
    # The queue with a free seat gets its pass.
    passes = {args[0] for args in sent_tasks.named("events.process_waitlist_for_event")}
    assert str(freed.pk) in passes
    assert counts == {"passes": len(passes), "expiries": 1, "announcements": 2}
