"""Shared pieces of the event administration tests: a recorder for waitlist dispatches
and a snapshot of every row an admin route can change (to show a refusal wrote nothing).
"""

import uuid
from typing import Any

import pytest

from events.models import (
    Event,
    EventRSVP,
    EventWaitList,
    Invitation,
    Ticket,
    TicketTier,
)


class DispatchRecorder(list[uuid.UUID]):
    """Stands in for `waitlist_service._dispatch`: the event ids it was given, in order.

    It is the list itself; `event_ids` names the same list for tests that read it so.
    """

    def __call__(self, event_id: uuid.UUID) -> None:
        self.append(event_id)

    @property
    def event_ids(self) -> list[uuid.UUID]:
        return self


@pytest.fixture
def dispatched(monkeypatch: pytest.MonkeyPatch) -> DispatchRecorder:
    """Event ids whose waitlist processing was dispatched (recorded instead of sent).

    `src/events/tests/conftest.py` offers it to every events test.
    """
    recorder = DispatchRecorder()
    monkeypatch.setattr("events.service.waitlist_service._dispatch", recorder)
    return recorder


def snapshot() -> list[Any]:
    """Every table the event admin routes write, in a comparable form."""
    return [
        list(model.objects.order_by("pk").values())
        for model in (Event, TicketTier, Ticket, EventRSVP, Invitation, EventWaitList)
    ]
