"""Shared pieces of the event administration tests: a recorder for waitlist dispatches
and a snapshot of every row an admin route can change (to show a refusal wrote nothing).
"""

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from common import dispatch
from events.models import (
    Event,
    EventRSVP,
    EventWaitList,
    Invitation,
    Ticket,
    TicketTier,
)

PROCESS_WAITLIST = "events.process_waitlist_for_event"


class DispatchRecorder(list[uuid.UUID]):
    """Stands in for `common.dispatch.send`: the event ids of the waitlist processing
    passes sent, in order, recorded instead of run; every other task goes on as usual.

    It is the list itself; `event_ids` names the same list for tests that read it so.
    """

    def __init__(self, send: Callable[[str, list[Any], dict[str, Any], str], bool]) -> None:
        super().__init__()
        self._send = send

    def __call__(self, name: str, args: list[Any], kwargs: dict[str, Any], queue: str) -> bool:
        if name != PROCESS_WAITLIST:
            return self._send(name, args, kwargs, queue)
        self.append(uuid.UUID(args[0]))
        return True

    @property
    def event_ids(self) -> list[uuid.UUID]:
        return self


@pytest.fixture
def dispatched(monkeypatch: pytest.MonkeyPatch) -> DispatchRecorder:
    """Event ids whose waitlist processing was dispatched (recorded instead of sent).

    `src/events/conftest.py` offers it to every events test.
    """
    recorder = DispatchRecorder(dispatch.send)
    monkeypatch.setattr(dispatch, "send", recorder)
    return recorder


def snapshot() -> list[Any]:
    """Every table the event admin routes write, in a comparable form."""
    return [
        list(model.objects.order_by("pk").values())
        for model in (Event, TicketTier, Ticket, EventRSVP, Invitation, EventWaitList)
    ]
