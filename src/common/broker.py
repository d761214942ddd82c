"""Notice a broker that came back empty, and have the apps publish again what it lost.

Redis is Encore's broker and keeps nothing on disk (docs/operations.md): restarted, it
comes back empty, and every task it held is gone: passes, offer expiries, the
notifications' deliveries. Every such task has its state in the database, and each app
has a job that publishes it again from there; on their own those jobs run every few
minutes to hourly. `check` runs every 15 seconds (beat) and, once a broker that lost its
data answers again, sends each app's recovery task at once
(`RECOVERY_TASKS_AFTER_BROKER_LOSS`), so what was in flight is published again within a
minute of the restart (ADR 0037).

How a loss is seen: a sentinel key written with SET NX. A broker that still holds it
lost nothing; one that does not (restarted empty, flushed, a new server) is answered by
exactly one check, whichever process runs it, since only one SET NX creates the key. The
first check after a deployment finds no key either: the recovery then publishes what is
pending in the database, which every task so published tolerates (each is idempotent).
"""

import logging

from celery import current_app
from django.conf import settings
from django.utils import timezone

from common import dispatch

logger = logging.getLogger("encore.broker")

SENTINEL_KEY = "encore:broker-holds-its-data"


def came_back_empty() -> bool:
    """True, once, when the broker no longer holds the sentinel; False for a broker with
    no such notion (the embedded filesystem broker: its messages are files that stay)."""
    with current_app.connection_for_write() as connection:
        client = getattr(connection.default_channel, "client", None)
        if client is None:
            return False
        return bool(client.set(SENTINEL_KEY, timezone.now().isoformat(), nx=True))


def check() -> list[str]:
    """Publish every app's recovery task if the broker lost its data; returns their names."""
    if not came_back_empty():
        return []
    names = list(settings.RECOVERY_TASKS_AFTER_BROKER_LOSS)
    logger.warning("the broker came back without its data; recovering", extra={"tasks": names})
    for name in names:
        dispatch.now(name)
    return names
