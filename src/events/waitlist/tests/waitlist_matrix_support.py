"""Helpers shared by the waitlist matrix test modules (test_waitlist_matrix_*.py): the clock
frozen at T0 for every matrix test, ISO times read back from the API, and the organiser
adding an RSVP over HTTP.
"""

from datetime import datetime

import pytest
import time_machine

from events.waitlist.tests.waitlist_builders import T0


@pytest.fixture(autouse=True)
def _at_t0():
    with time_machine.travel(T0, tick=False):
        yield


def at(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _admin_rsvp_yes(api, event, user):
    return api(event.organization.owner).post(
        f"/event-admin/{event.pk}/rsvps", {"user_id": str(user.pk), "status": "yes"}
    )
