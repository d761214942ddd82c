"""Users deleted while others register, on PostgreSQL row locks (real commits, threads).

Each thread has its own connection; a barrier releases them together. Deleting locks
each event's row first, like every registration, so the freed seats go to exactly as
many newcomers as were freed and the counters stay true; bare ORM deletes of two users
holding seats at the same events lock them in the same (pk) order, so they never
deadlock.
"""

from collections.abc import Callable

import pytest

from accounts.models import User
from accounts.service import user_deletion
from accounts.tests.factories import make_user
from common.tests.racing import run_together
from events.core.services.event_manager import EventManager
from events.core.tests.attendance_builders import attendee_count, yes_count
from events.core.tests.factories import fill_with_rsvps, make_event
from events.core.tests.threaded_eager import eager_join_flag_cleared_after_race
from events.models import EventRSVP

__all__ = ["eager_join_flag_cleared_after_race"]  # the autouse fixture, for pytest

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _race(jobs: list[Callable[[], object]]) -> list[str]:
    """'ok', or the code (else the class name) of the error each job raised."""
    return [
        getattr(result, "code", type(result).__name__) if isinstance(result, Exception) else "ok"
        for result in run_together(jobs)
    ]


def test_seats_freed_by_deletions_go_to_exactly_as_many_newcomers():
    event = make_event(max_attendees=6)
    holders = fill_with_rsvps(event, 6)
    leaving, newcomers = holders[:3], [make_user() for _ in range(6)]

    def delete(user: User) -> Callable[[], None]:
        return lambda: user_deletion.delete_user(user)

    def register(user: User) -> Callable[[], object]:
        return lambda: EventManager(user, event).rsvp(EventRSVP.Status.YES)

    outcomes = _race([delete(user) for user in leaving] + [register(user) for user in newcomers])

    assert outcomes.count("ok") >= 3, outcomes  # the three deletions at least
    assert set(outcomes) <= {"ok", "event_is_full"}, outcomes
    assert not User.objects.filter(pk__in=[user.pk for user in leaving]).exists()
    assert attendee_count(event) == yes_count(event) <= 6
    assert yes_count(event) == 3 + outcomes.count("ok") - 3


def test_bare_deletes_of_two_users_at_the_same_events_do_not_deadlock():
    events = [make_event(max_attendees=10) for _ in range(4)]
    a, b = make_user(), make_user()
    for event in events:
        for user in (a, b):
            EventManager(user, event).rsvp(EventRSVP.Status.YES, by_staff=True)

    outcomes = _race([lambda: User.objects.filter(pk=a.pk).delete(), b.delete])

    assert outcomes == ["ok", "ok"], outcomes
    for event in events:
        assert attendee_count(event) == yes_count(event) == 0
