"""Keep a Celery task the broker refused, and publish it once the broker is back.

`common.dispatch` is the way in: it publishes through `publish_or_keep`. When the broker
refuses the message (it is down: the publish fails within
CELERY_BROKER_CONNECTION_TIMEOUT), the call is kept as an `OutboxMessage` row instead of
being lost, and the beat's `common.flush_outbox` (every minute) publishes it once the
broker is back. The caller never sees the outage: a request still answers at once.

What it promises (docs/adr/0012-two-queues-and-an-outbox.md):
- at least once from the moment of the publish: a row may be published twice (a flush
  that died between the publish and its `sent_at`), so a task sent this way must be
  idempotent or harmless when repeated;
- the row is written only on a refused publish, so the usual path costs no query. A
  process that dies in the instant between the commit and the publish still loses the
  message; the waitlist's own nudges cover theirs.
- after a refusal the broker is not asked again for a few seconds (`common.circuit`): the
  publishes meanwhile are kept at once, so a request pays the broker's time-out once at
  most (ADR 0037).
- past `GIVE_UP_AFTER` a kept message is dropped (logged): news no more.
- a task published with an ETA (`dispatch.after_commit(..., eta=...)`) is kept without
  it: the flush publishes it to run at once, so such a task must be harmless early
  (ADR 0019: the waitlist's expiry task sends itself again for the time left).
"""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from common.circuit import Breaker
from common.models import OutboxMessage

logger = logging.getLogger("encore.outbox")

#: What a refused publish raises: kombu's wrapped connection errors, or the socket's own.
BROKER_ERRORS: tuple[type[BaseException], ...] = (BrokerError, OSError)
GIVE_UP_AFTER = timedelta(hours=24)
KEEP_SENT_FOR = timedelta(days=1)
FLUSH_BATCH = 500
ERROR_MAX_LENGTH = 2000
BROKER = Breaker("the broker")


class BrokerUnavailable(BrokerError):
    """A publish not tried: the broker refused one a moment ago (`BROKER`)."""


def publish_or_keep(
    name: str,
    args: list[Any],
    kwargs: dict[str, Any],
    queue: str = "",
    *,
    eta: datetime | None = None,
) -> bool:
    """Publish now (to run at `eta` if given); on a broker error store the call for
    `flush`, without the ETA (module doc). True when published."""
    try:
        if BROKER.is_open():
            raise BrokerUnavailable("the broker refused a publish a moment ago; not asked")
        _publish(name, args, kwargs, queue, eta)
    except BROKER_ERRORS as exc:
        if not isinstance(exc, BrokerUnavailable):
            BROKER.trip(exc)
        message = OutboxMessage.objects.create(
            task_name=name,
            args=args,
            kwargs=kwargs,
            queue=queue,
            attempts=1,
            last_error=repr(exc)[:ERROR_MAX_LENGTH],
        )
        logger.warning(
            "broker refused a task; kept in the outbox",
            extra={"task": name, "outbox_id": str(message.pk), "error": repr(exc)[:200]},
        )
        return False
    return True


@dataclass(frozen=True)
class FlushResult:
    published: int = 0
    waiting: int = 0
    dropped: int = 0


def flush(now: datetime | None = None) -> FlushResult:
    """Publish the kept messages, oldest first; stop at the first refusal (the broker is
    still down: the next minute tries again). Each row is claimed by a conditional UPDATE
    of its attempts before its publish, so two overlapping flushes publish it once."""
    now = now or timezone.now()
    OutboxMessage.objects.filter(sent_at__lte=now - KEEP_SENT_FOR).delete()
    dropped = _drop_stale(now)
    unsent = list(
        OutboxMessage.objects.filter(sent_at__isnull=True).order_by("created_at")[:FLUSH_BATCH]
    )
    published = 0
    for message in unsent:
        claimed = OutboxMessage.objects.filter(
            pk=message.pk, sent_at__isnull=True, attempts=message.attempts
        ).update(attempts=message.attempts + 1, updated_at=timezone.now())
        if not claimed:
            continue
        try:
            _publish(message.task_name, message.args, message.kwargs, message.queue)
        except BROKER_ERRORS as exc:
            OutboxMessage.objects.filter(pk=message.pk).update(
                last_error=repr(exc)[:ERROR_MAX_LENGTH], updated_at=timezone.now()
            )
            logger.warning(
                "outbox flush stopped: the broker still refuses",
                extra={"outbox_id": str(message.pk), "error": repr(exc)[:200]},
            )
            break
        OutboxMessage.objects.filter(pk=message.pk).update(
            sent_at=timezone.now(), updated_at=timezone.now()
        )
        published += 1
    waiting = OutboxMessage.objects.filter(sent_at__isnull=True).count()
    if published or waiting or dropped:
        logger.info(
            "outbox flushed",
            extra={"published": published, "waiting": waiting, "dropped": dropped},
        )
    return FlushResult(published=published, waiting=waiting, dropped=dropped)


def _drop_stale(now: datetime) -> int:
    stale = OutboxMessage.objects.filter(sent_at__isnull=True, created_at__lte=now - GIVE_UP_AFTER)
    for name, pk in stale.values_list("task_name", "pk"):
        logger.error(
            "outbox message dropped unsent after %s", GIVE_UP_AFTER,
            extra={"task": name, "outbox_id": str(pk)},
        )  # fmt: skip
    dropped, _ = stale.delete()
    return dropped


def _publish(
    name: str, args: list[Any], kwargs: dict[str, Any], queue: str, eta: datetime | None = None
) -> None:
    task = current_app.tasks[name]
    options: dict[str, Any] = {"queue": queue} if queue else {}  # else the task's route decides
    if eta is not None:
        options["eta"] = eta
    task.apply_async(args=tuple(args), kwargs=kwargs, **options)
