"""After a failure the part is left alone for a pause, then asked again (common.circuit)."""

import time
from typing import Any

import pytest
from kombu.exceptions import OperationalError

from common import outbox
from common.models import OutboxMessage


@pytest.mark.django_db
def test_after_a_refusal_the_broker_is_not_asked_until_the_pause_is_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    def refuse(name: str, *args: Any) -> None:
        asked.append(name)
        raise OperationalError("Connection refused")

    monkeypatch.setattr(outbox, "_publish", refuse)
    monkeypatch.setattr(outbox.BROKER, "pause", 0.3)

    for _ in range(3):
        assert outbox.publish_or_keep("common.ping", [], {}) is False
    assert asked == ["common.ping"]  # the first publish asked; the next two were kept at once
    time.sleep(0.35)
    assert outbox.publish_or_keep("common.ping", [], {}) is False
    assert asked == ["common.ping", "common.ping"]
    assert OutboxMessage.objects.filter(task_name="common.ping", sent_at=None).count() == 4
