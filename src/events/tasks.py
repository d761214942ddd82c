"""Every Celery task of the events app, under its pinned name.

Each feature package keeps its tasks in its own `tasks.py`; Celery's autodiscovery
imports this module, which imports them, so they are registered, and
`events.tasks.<task>` (the design's place, and where tests reach them) hands out the
same objects.
"""

from events.core.tasks import (
    send_event_notification_task,
    send_rsvp_confirmation_task,
    send_staff_welcome_task,
)
from events.series.tasks import generate_recurring_events_task, generate_single_series_events_task
from events.ticketing.tasks import expire_online_checkouts, expire_unpaid_tickets
from events.waitlist.tasks import (
    expire_event_offers_task,
    expire_waitlist_offers_task,
    nudge_open_waitlists_task,
    process_waitlist_for_event_task,
    resend_waitlist_offer_notifications_task,
    send_offer_expired_notifications_task,
    send_waitlist_offer_notification_task,
)

__all__ = [
    "expire_event_offers_task",
    "expire_online_checkouts",
    "expire_unpaid_tickets",
    "expire_waitlist_offers_task",
    "generate_recurring_events_task",
    "generate_single_series_events_task",
    "nudge_open_waitlists_task",
    "process_waitlist_for_event_task",
    "resend_waitlist_offer_notifications_task",
    "send_event_notification_task",
    "send_offer_expired_notifications_task",
    "send_rsvp_confirmation_task",
    "send_staff_welcome_task",
    "send_waitlist_offer_notification_task",
]
