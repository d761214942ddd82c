"""/event-admin/{event_id}/waitlist: the queue in FIFO order, search, removal."""

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.tests.factories import make_user
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import make_event
from events.models import Event, EventWaitList


def _url(event: Event, entry_id: Any = None) -> str:
    base = f"/event-admin/{event.pk}/waitlist"
    return base if entry_id is None else f"{base}/{entry_id}"


def _queue(event: Event, *people: dict[str, str]) -> list[EventWaitList]:
    """Queue the people in order, a minute apart (explicit times: FIFO is by created_at)."""
    start = timezone.now() - timedelta(hours=1)
    entries = []
    for index, fields in enumerate(people):
        entry = EventWaitList.objects.create(event=event, user=make_user(**fields))
        EventWaitList.objects.filter(pk=entry.pk).update(
            created_at=start + timedelta(minutes=index)
        )
        entries.append(entry)
    return entries


@pytest.fixture
def event(db: None) -> Event:
    return make_event(max_attendees=1, waitlist_open=True)


def _owner(api: Any, event: Event) -> Any:
    return api(event.organization.owner)


PEOPLE = [
    {"first_name": "Ada", "last_name": "Lovelace"},
    {"first_name": "Grace", "last_name": "Hopper"},
    {"preferred_name": "Kat", "email": "katherine@johnson.example"},
    {"first_name": "Alan", "last_name": "Turing"},
]


@pytest.mark.django_db
class TestQueue:
    def test_the_queue_comes_in_fifo_order_with_positions(self, api, event) -> None:
        entries = _queue(event, *reversed(PEOPLE))  # created in reverse name order
        response = _owner(api, event).get(_url(event))
        assert response.status_code == 200
        results = response.json()["results"]
        assert [r["id"] for r in results] == [str(e.pk) for e in entries]
        assert [r["position"] for r in results] == [1, 2, 3, 4]
        first = results[0]
        assert set(first) == {"id", "user", "created_at", "position", "current_offer"}
        assert first["current_offer"] is None
        assert first["user"]["display_name"] == "Alan Turing"

    def test_search_filters_by_name_and_email_but_keeps_real_positions(self, api, event) -> None:
        _queue(event, *PEOPLE)
        by_last_name = _owner(api, event).get(_url(event), search="hopper").json()["results"]
        assert [(r["user"]["display_name"], r["position"]) for r in by_last_name] == [
            ("Grace Hopper", 2)
        ]
        by_email = _owner(api, event).get(_url(event), search="JOHNSON").json()["results"]
        assert [r["position"] for r in by_email] == [3]
        by_full_name = _owner(api, event).get(_url(event), search="alan turing").json()
        assert [r["position"] for r in by_full_name["results"]] == [4]
        nobody = _owner(api, event).get(_url(event), search="zzz").json()
        assert nobody["count"] == 0

    def test_pages_keep_counting_positions(self, api, event) -> None:
        _queue(event, *PEOPLE)
        page = _owner(api, event).get(_url(event), page_size=3, page=2).json()
        assert page["count"] == 4
        assert [r["position"] for r in page["results"]] == [4]

    def test_positions_cost_the_same_queries_for_one_entry_or_many(self, api, event) -> None:
        client = _owner(api, event)
        _queue(event, PEOPLE[0])
        with CaptureQueriesContext(connection) as one:
            client.get(_url(event), page_size=100)
        _queue(event, *PEOPLE[1:], *({} for _ in range(10)))
        with CaptureQueriesContext(connection) as many:
            response = client.get(_url(event), page_size=100)
        assert len(response.json()["results"]) == 14
        assert len(many.captured_queries) == len(one.captured_queries)

    def test_only_this_events_queue_is_listed(self, api, event) -> None:
        other = make_event(event.organization, waitlist_open=True)
        _queue(other, {})
        assert _owner(api, event).get(_url(event)).json()["count"] == 0

    def test_removing_an_entry_moves_the_others_up(self, api, event) -> None:
        entries = _queue(event, *PEOPLE)
        assert _owner(api, event).delete(_url(event, entries[1].pk)).status_code == 204
        assert not EventWaitList.objects.filter(pk=entries[1].pk).exists()
        results = _owner(api, event).get(_url(event)).json()["results"]
        assert [r["position"] for r in results] == [1, 2, 3]
        assert [r["id"] for r in results] == [str(e.pk) for e in (entries[0], *entries[2:])]

    def test_an_entry_of_another_event_is_404(self, api, event) -> None:
        other = make_event(event.organization, waitlist_open=True)
        foreign = _queue(other, {})[0]
        before = snapshot()
        assert _owner(api, event).delete(_url(event, foreign.pk)).status_code == 404
        assert snapshot() == before

    def test_an_overlong_search_is_422(self, api, event) -> None:
        assert _owner(api, event).get(_url(event), search="x" * 201).status_code == 422
