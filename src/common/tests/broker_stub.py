"""`broker`: stands between `common.ping` and the (eager) broker, for the outbox and
dispatch tests: down (a refused publish), broken (the task itself fails), or up,
recording what got through."""

from typing import Any

import pytest
from kombu.exceptions import OperationalError

from common.tasks import ping


class Broker:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.down = False
        self.broken = False
        self.published: list[tuple[list[Any], dict[str, Any]]] = []
        monkeypatch.setattr(ping, "apply_async", self.apply_async)

    def apply_async(self, args: tuple[Any, ...], kwargs: dict[str, Any], **options: Any) -> None:
        if self.down:
            raise OperationalError("[Errno 111] Connection refused")
        if self.broken:
            raise RuntimeError("the task itself failed (eager mode)")
        self.published.append((list(args), {**kwargs, **options}))


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch) -> Broker:
    return Broker(monkeypatch)
