"""Tasks of the `common` app: a ping that proves a worker consumes the broker."""

from celery import shared_task


@shared_task(name="common.ping")
def ping() -> str:
    """Answer "pong"; used to check that a dispatched message reaches a worker."""
    return "pong"
