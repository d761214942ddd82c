"""`sent_tasks`: what went out through `common.dispatch`, recorded instead of published.

The seam's publish step (`common.dispatch.send`) is replaced, so the name checks and the
after-commit timing stay real: a call inside a transaction shows up only once it commits.
"""

from dataclasses import dataclass, field
from typing import Any

import pytest


@dataclass
class SentTasks:
    calls: list[tuple[str, list[Any], dict[str, Any], str]] = field(default_factory=list)

    def __call__(self, name: str, args: list[Any], kwargs: dict[str, Any], queue: str) -> bool:
        self.calls.append((name, args, kwargs, queue))
        return True

    def named(self, name: str) -> list[list[Any]]:
        """The argument lists of every send of `name`, in order."""
        return [args for sent, args, _, _ in self.calls if sent == name]

    @property
    def names(self) -> list[str]:
        return [name for name, _, _, _ in self.calls]


@pytest.fixture
def sent_tasks(monkeypatch: pytest.MonkeyPatch) -> SentTasks:
    recorder = SentTasks()
    monkeypatch.setattr("common.dispatch.send", recorder)
    return recorder
