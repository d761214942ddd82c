"""Shared pieces of the event administration tests: a recorder for waitlist dispatches
and a snapshot of every row an admin route can change (to show a refusal wrote nothing).
"""

import uuid
from typing import Any

import pytest

from events.models import Event, EventRSVP, EventWaitList, Invitation, Ticket, TicketTier


class DispatchRecorder:
    """Stands in for `waitlist_service._dispatch`: records the event ids it was given."""

    def __init__(self) -> None:
        self.event_ids: list[uuid.UUID] = []

    def __call__(self, event_id: uuid.UUID) -> None:
        self.event_ids.append(event_id)


@pytest.fixture
def dispatched(monkeypatch: pytest.MonkeyPatch) -> DispatchRecorder:
    recorder = DispatchRecorder()
    monkeypatch.setattr("events.service.waitlist_service._dispatch", recorder)
    return recorder


def snapshot() -> list[Any]:
    """Every table the event admin routes write, in a comparable form."""
    return [
        list(model.objects.order_by("pk").values())
        for model in (Event, TicketTier, Ticket, EventRSVP, Invitation, EventWaitList)
    ]
