"""Who hears about what happens to an event, and the one place that tells them.

The `notify_*` functions are called by the writers, inside their transaction. Each
registers its send with `common.dispatch` (a task for a whole audience, an in-process
call for one person), so:

- a rolled-back transaction sends nothing;
- the audience is read after the commit, from committed rows, and no lock is held
  while anything is sent (docs/spec/domain.md: side effects go out on commit);
- a failure to notify is logged and never turns a committed change into an error.

A send loads what it needs with a fixed number of queries whatever the audience size
(the event, then the recipients in one query), then sends `notification_requested`
once per recipient inside one transaction of its own: the notifications app stores the
rows together and dispatches them when that transaction commits. Run outside any
transaction (the normal case after a commit) each fan-out is therefore all-or-nothing.
The event-level fan-outs (whole audiences) run in the task
`events.send_event_notification`; the per-person ones in the committing process.

Audiences (docs/spec/domain.md "Notifications", "Status changes"):

- `event_open`: live members (active/paused) and followers who want new events (of the
  organisation, or of the event's series; not archived), as far as the event's
  visibility allows: public/unlisted → members and followers; members_only → members;
  private → invited people; staff_only → only those of them who are staff. A non-public
  organisation shows its events to members and staff only, so a follower who is
  neither hears nothing. Blacklisted people never; a series template never.
- `event_updated`, `event_cancelled`: people holding a non-cancelled ticket and YES RSVPs.
- `ticket_created`, `ticket_cancelled`: the ticket's owner, one notification per person
  per checkout, sale or cancellation (listing its tickets).
- `rsvp_confirmation`: the person who answered (also when staff answered for them).

Deactivated accounts are never notified.
"""

import logging
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from accounts.models import User
from common import dispatch
from events.core.selectors import audiences
from events.core.services import notification_context
from events.models import (
    Event,
    EventRSVP,
    Invitation,
    Organization,
    Ticket,
)
from notifications.models import NotificationType
from notifications.selectors import requested
from notifications.signals import notification_requested

logger = logging.getLogger("encore.events")

Message = tuple[User, dict[str, Any]]

#: How far back the recovery after a broker loss looks for answers left unconfirmed: a
#: task waits in Redis seconds to minutes, never hours, so this bounds the scan with room.
CONFIRMATIONS_LOST_WITHIN = timedelta(hours=6)


# -- called by the writers (inside their transaction) -------------------------------------
def notify_event_opened(event_id: uuid.UUID) -> None:
    _fan_out_after_commit(NotificationType.EVENT_OPEN, event_id)


def notify_event_updated(event_id: uuid.UUID, changed_fields: Sequence[str]) -> None:
    _fan_out_after_commit(NotificationType.EVENT_UPDATED, event_id, list(changed_fields))


def notify_event_cancelled(event_id: uuid.UUID, *, message: str = "") -> None:
    """`message`: the organiser's own words for the attendees, told with the notice."""
    _fan_out_after_commit(NotificationType.EVENT_CANCELLED, event_id, message=message)


def notify_tickets_created(ticket_ids: Iterable[uuid.UUID]) -> None:
    ids = list(ticket_ids)
    if ids:
        _after_commit("ticket_created", lambda: send_tickets_created(ids))


def notify_tickets_cancelled(ticket_ids: Iterable[uuid.UUID]) -> None:
    ids = list(ticket_ids)
    if ids:
        _after_commit("ticket_cancelled", lambda: send_tickets_cancelled(ids))


def notify_rsvp_answered(event_id: uuid.UUID, user_id: uuid.UUID, status: str) -> None:
    """`status` is the answer given now (a later answer sends its own confirmation).

    From a task, not in the request: the confirmation is a notification with its
    preferences and deliveries (some twenty statements), which a registration's answer
    need not wait for, and in a rush for the last seats each winner's request would
    spend that time in the web process every other claimer shares (docs/spec/quality.md e1)."""
    dispatch.after_commit("events.send_rsvp_confirmation", str(event_id), str(user_id), str(status))


def _after_commit(notification_type: str, send: Callable[[], object]) -> None:
    dispatch.call_after_commit("event notification", send, notification_type=notification_type)


def _fan_out_after_commit(
    notification_type: str,
    event_id: uuid.UUID,
    changed_fields: list[str] | None = None,
    *,
    message: str = "",
) -> None:
    """An event's whole audience (members, followers, attendees: any size) is told from a
    task, so the request that opened, changed or cancelled the event never waits for the
    fan-out. With the broker down it waits in the outbox: late, not lost."""
    args: list[object] = [notification_type, str(event_id), changed_fields]
    if message:  # the fourth argument only when there is one: the task's call stays the same
        args.append(message)
    dispatch.after_commit("events.send_event_notification", *args)


def send_event_notification(
    notification_type: str,
    event_id: uuid.UUID,
    changed_fields: Sequence[str] | None = None,
    *,
    message: str = "",
) -> int:
    """The fan-out of one event-level notification (the task's body)."""
    if notification_type == NotificationType.EVENT_OPEN:
        return send_event_opened(event_id)
    if notification_type == NotificationType.EVENT_UPDATED:
        return send_event_updated(event_id, changed_fields or [])
    if notification_type == NotificationType.EVENT_CANCELLED:
        return send_event_cancelled(event_id, message=message)
    raise ValueError(f"not an event-level notification: {notification_type!r}")


# -- sending (after the commit); each returns how many people were notified ---------------
def send_event_opened(event_id: uuid.UUID) -> int:
    event = _load_event(event_id)
    if event is None or event.is_template or event.status != Event.Status.OPEN:
        return 0  # gone, a template, or no longer open by the time of the commit
    context = notification_context.event_context(event)
    return _send(
        NotificationType.EVENT_OPEN, Event, [(u, context) for u in event_open_audience(event)]
    )


def send_event_updated(event_id: uuid.UUID, changed_fields: Sequence[str]) -> int:
    event = _load_event(event_id)
    if event is None or event.is_template:
        return 0
    context = notification_context.event_updated_context(event, changed_fields)
    return _send(NotificationType.EVENT_UPDATED, Event, [(u, context) for u in attendees(event)])


def send_event_cancelled(event_id: uuid.UUID, *, message: str = "") -> int:
    event = _load_event(event_id)
    if event is None or event.status != Event.Status.CANCELLED:
        return 0  # un-cancelled again before this ran: nothing to tell
    context = notification_context.event_cancelled_context(event, message)
    return _send(NotificationType.EVENT_CANCELLED, Event, [(u, context) for u in attendees(event)])


def send_tickets_created(ticket_ids: Sequence[uuid.UUID]) -> int:
    return _send(NotificationType.TICKET_CREATED, Ticket, _ticket_messages(ticket_ids))


def send_tickets_cancelled(ticket_ids: Sequence[uuid.UUID]) -> int:
    return _send(NotificationType.TICKET_CANCELLED, Ticket, _ticket_messages(ticket_ids))


def send_rsvp_confirmation(event_id: uuid.UUID, user_id: uuid.UUID, status: str) -> int:
    """The confirmation of the answer `status`, once: a copy of the task that runs again
    (redelivered after its worker died, or published again after the broker lost its
    messages) finds the first copy's notification, stored since the answer was last
    changed, and sends nothing. Copies take turns on the person's row (FOR NO KEY UPDATE:
    it never waits for, nor holds up, a claim inserting their RSVP)."""
    event = _load_event(event_id)
    if event is None:
        return 0
    with transaction.atomic():
        user = User.objects.select_for_update(no_key=True).filter(pk=user_id).first()
        if user is None:
            return 0
        answered = (
            EventRSVP.objects.filter(event_id=event_id, user_id=user_id)
            .values_list("updated_at", flat=True)
            .first()
        )
        if answered is not None and requested.stored_since(
            user_id,
            NotificationType.RSVP_CONFIRMATION,
            answered,
            event_id=str(event_id),
            status=str(status),
        ):
            return 0
        context = notification_context.rsvp_context(event, status)
        return _send(NotificationType.RSVP_CONFIRMATION, EventRSVP, [(user, context)])


def resend_lost_rsvp_confirmations(now: datetime) -> list[tuple[str, str, str]]:
    """After the broker lost its messages (`common.broker`): the confirmation task again
    for every answer of the last `CONFIRMATIONS_LOST_WITHIN` with no confirmation stored
    since it was given; returns (event, user, answer) of each. Two queries, whatever the
    number of answers; the task itself sends each confirmation once."""
    since = now - CONFIRMATIONS_LOST_WITHIN
    stored: dict[tuple[str, str, str], datetime] = {}
    for row in requested.stored_of_type_since(NotificationType.RSVP_CONFIRMATION, since):
        key = (
            str(row["context"].get("event_id")),
            str(row["user_id"]),
            str(row["context"].get("status")),
        )
        stored[key] = max(stored.get(key, row["created_at"]), row["created_at"])
    lost = []
    answers = EventRSVP.objects.filter(updated_at__gte=since, user__is_active=True).values_list(
        "event_id", "user_id", "status", "updated_at"
    )
    for event_id, user_id, status, answered in answers:
        key = (str(event_id), str(user_id), str(status))
        latest = stored.get(key)
        if latest is None or latest < answered:
            lost.append(key)
            dispatch.now("events.send_rsvp_confirmation", *key)
    return lost


# -- audiences: one query each, whatever their size ----------------------------------------
def attendees(event: Event) -> list[User]:
    """People holding a non-cancelled ticket of `event`, and its YES RSVPs (each once)."""
    return list(
        User.objects.filter(is_active=True)
        .filter(audiences.holding_tickets(event) | audiences.going(event))
        .order_by("pk")
    )


def event_open_audience(event: Event) -> list[User]:
    """Who hears that `event` opened (see the module docstring); `event.organization` loaded."""
    if event.is_template:
        return []
    audience = _open_audience_filter(event)
    if audience is None:
        return []
    return list(
        User.objects.filter(is_active=True)
        .filter(audience)
        .filter(~Exists(audiences.blacklist_entries(event.organization)))
        .order_by("pk")
    )


def _open_audience_filter(event: Event) -> Q | None:
    organization = event.organization
    member = audiences.live_members(organization)
    staff = audiences.owner_and_staff(organization)
    interested = member | audiences.new_event_followers(
        event.organization_id, event.event_series_id
    )
    visibility = event.visibility
    if visibility in (Event.Visibility.PUBLIC, Event.Visibility.UNLISTED):
        audience = interested
    elif visibility == Event.Visibility.MEMBERS_ONLY:
        audience = member
    elif visibility == Event.Visibility.PRIVATE:
        audience = Q(Exists(Invitation.objects.filter(event=event, user=OuterRef("pk"))))
    elif visibility == Event.Visibility.STAFF_ONLY:
        audience = interested & staff
    else:
        return None
    if organization.visibility != Organization.Visibility.PUBLIC:
        audience &= member | staff  # a non-public organisation shows nothing to outsiders
    return audience


# -- loading and sending -------------------------------------------------------------------
def _load_event(event_id: uuid.UUID) -> Event | None:
    return Event.objects.select_related("organization", "venue").filter(pk=event_id).first()


def _ticket_messages(ticket_ids: Sequence[uuid.UUID]) -> list[Message]:
    """One message per (event, owner), listing their tickets in the order given."""
    order = {ticket_id: index for index, ticket_id in enumerate(ticket_ids)}
    tickets = sorted(
        Ticket.objects.filter(pk__in=order).select_related(
            "tier", "user", "event__organization", "payment"
        ),
        key=lambda ticket: order[ticket.pk],
    )
    groups: dict[tuple[uuid.UUID, uuid.UUID], list[Ticket]] = {}
    for ticket in tickets:
        groups.setdefault((ticket.event_id, ticket.user_id), []).append(ticket)
    return [
        (group[0].user, notification_context.tickets_context(group[0].event, group))
        for group in groups.values()
    ]


def _send(notification_type: str, sender: type, messages: Iterable[Message]) -> int:
    """Request one notification per message, all in one transaction (stored together,
    dispatched by the notifications app when it commits)."""
    wanted = [(user, context) for user, context in messages if user.is_active]
    if not wanted:
        return 0
    with transaction.atomic():
        for user, context in wanted:
            notification_requested.send(
                sender=sender, notification_type=notification_type, user=user, context=context
            )
    logger.info(
        "event notifications requested",
        extra={"notification_type": notification_type, "recipients": len(wanted)},
    )
    return len(wanted)
