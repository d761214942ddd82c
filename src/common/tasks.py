"""Tasks of the `common` app: a ping that proves a worker consumes the broker; the outbox
flush; the check for a broker that came back empty."""

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


@shared_task(name="common.check_broker")
def check_broker() -> list[str]:
    """Every 15 seconds: if the broker lost its data, each app's recovery task now."""
    from common import broker

    return broker.check()
