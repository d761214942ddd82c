"""Helpers shared by the trigger site test modules (test_waitlist_triggers_*.py): the clock
frozen at T0, the `committed` fixture that plays the role of the commit, and a full RSVP
event with an active waitlist.
"""

import pytest
import time_machine

from events.core.tests.factories import fill_with_rsvps
from events.waitlist.tests.waitlist_builders import T0, active_event, queue_in_order


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run a step, then its on-commit callbacks; returns the step's result."""

    def run(step):
        with django_capture_on_commit_callbacks(execute=True):
            return step()

    return run


def full_rsvp_event(**fields):
    event = active_event(3, **fields)
    attendees = fill_with_rsvps(event, 3)
    queue_in_order(event, 1)
    return event, attendees
