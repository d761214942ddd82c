"""Data for the me pages in the browser: one attendee with something of every kind."""

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_event
from web.tests.me.support import full_week, notify


@pytest.fixture
def attendee() -> User:
    """Upcoming RSVP, ticket, queue place and live offer; one read and two unread notifications."""
    user = full_week(make_user(first_name="Ada", timezone="Europe/Berlin"))
    event = make_event(name="A rather long event name that has to wrap on a phone screen somehow")
    notify(user, "Your seat is confirmed", event)
    notify(user, "The venue has changed", event)
    return user
