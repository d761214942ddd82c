"""RSVPs under contention, through the whole HTTP stack, on PostgreSQL row locks.

Each thread is one person with their own JWT, their own `django.test.Client` and their
own database connection (Django opens one per thread; each thread closes it at the end).
`post_together` releases them at once and retries a 503 `busy`, as clients are told to.
"""

from collections import Counter

import pytest

from accounts.service.tokens import issue_token_pair
from accounts.tests.factories import make_user
from common.tests.racing import post_together
from events.core.tests.attendance_builders import attendee_count, yes_count
from events.core.tests.factories import fill_with_rsvps, make_event
from events.core.tests.threaded_eager import eager_join_flag_cleared_after_race
from events.models import Event, EventRSVP

__all__ = ["eager_join_flag_cleared_after_race"]  # the autouse fixture, for pytest


def _token(user) -> str:
    return issue_token_pair(user).access


def _race(paths_and_tokens: list[tuple[str, str]]) -> list[tuple[int, str | None]]:
    """POST every (path, token) from its own thread, all released at once."""
    return post_together([(path, token, None) for path, token in paths_and_tokens])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fifty_people_racing_for_the_last_five_seats_never_oversell():
    event = make_event(max_attendees=20, waitlist_open=True)
    fill_with_rsvps(event, 15)
    people = [make_user() for _ in range(50)]
    path = f"/api/events/{event.pk}/rsvp/yes"

    outcomes = _race([(path, _token(person)) for person in people])

    assert Counter(status for status, _ in outcomes) == {200: 5, 409: 45}, outcomes
    assert {code for status, code in outcomes if status == 409} == {"event_is_full"}
    assert attendee_count(event) == yes_count(event) == event.effective_capacity == 20
    winners = EventRSVP.objects.filter(event=event, user__in=people, status="yes").count()
    assert winners == 5


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_seats_freed_during_a_rush_are_counted_exactly_once():
    """Attendees leaving while newcomers push in: the count always matches the YES rows."""
    event = make_event(max_attendees=10)
    attendees = fill_with_rsvps(event, 10)
    leavers = attendees[:5]
    newcomers = [make_user() for _ in range(25)]
    calls = [(f"/api/events/{event.pk}/rsvp/no", _token(person)) for person in leavers] + [
        (f"/api/events/{event.pk}/rsvp/yes", _token(person)) for person in newcomers
    ]

    outcomes = _race(calls)

    statuses = Counter(status for status, _ in outcomes)
    assert set(statuses) <= {200, 409}, outcomes
    won = statuses[200] - len(leavers)
    assert 0 <= won <= 5
    assert statuses[409] == len(newcomers) - won
    fresh = Event.objects.get(pk=event.pk)
    assert fresh.attendee_count == yes_count(event) == 5 + won <= 10
