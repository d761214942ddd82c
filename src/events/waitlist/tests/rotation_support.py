"""`scheduled`: the ETA dispatches (`common.dispatch.send_later`) recorded instead of sent.

The tests' Celery is eager and cannot wait for an ETA (`common.dispatch`); recording the
publish step keeps the name check and the after-commit timing real.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest

EXPIRE_EVENT_OFFERS = "events.expire_event_offers"


@dataclass(frozen=True)
class Scheduled:
    name: str
    args: list[Any]
    eta: datetime

    @property
    def due(self) -> datetime:
        return datetime.fromisoformat(self.args[1])


class ScheduledTasks(list[Scheduled]):
    def __call__(
        self, name: str, args: list[Any], kwargs: dict[str, Any], queue: str, eta: datetime
    ) -> bool:
        self.append(Scheduled(name, args, eta))
        return True

    def expiries(self) -> list[Scheduled]:
        return [s for s in self if s.name == EXPIRE_EVENT_OFFERS]


@pytest.fixture
def scheduled(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScheduledTasks]:
    recorder = ScheduledTasks()
    monkeypatch.setattr("common.dispatch.send_later", recorder)
    yield recorder
