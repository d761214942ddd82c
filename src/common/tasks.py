"""Tasks of the `common` app: a ping that proves a worker consumes the broker; the outbox flush."""

from celery import shared_task


@shared_task(name="common.ping")
def ping() -> str:
    """Answer "pong"; used to check that a dispatched message reaches a worker."""
    return "pong"


@shared_task(name="common.flush_outbox")
def flush_outbox() -> dict[str, int]:
    """Every minute: publish the tasks the broker refused while it was down."""
    from common import outbox

    result = outbox.flush()
    return {"published": result.published, "waiting": result.waiting, "dropped": result.dropped}
