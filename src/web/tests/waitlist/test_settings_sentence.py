"""The sentence that says what the waitlist settings will do: every row of the
configuration matrix (docs/spec/seed-tables.md), as the function says it and as the page shows it."""

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from web.tests.waitlist.support import active_event, url
from web.views.waitlist.summary import WaitlistSettings, describe_settings, duration

NOW = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)
START = datetime(2031, 5, 8, 19, 0, tzinfo=UTC)
H2 = timedelta(hours=2)


def _say(
    open_: bool = True,
    window: timedelta | None = H2,
    batch: int = 0,
    cutoff: datetime | None = None,
    lottery: bool = False,
) -> str:
    settings = WaitlistSettings(open_, window, batch, cutoff, lottery)
    return describe_settings(settings, start=START, now=NOW, zone="Europe/Vienna")


class TestEveryRowOfTheMatrix:
    def test_closed_whatever_the_rest(self) -> None:
        for window, batch, cutoff in ((None, 0, None), (H2, 5, START - timedelta(hours=6))):
            assert _say(False, window, batch, cutoff) == (
                "The waitlist is closed: nobody can join it."
            )

    def test_open_without_a_window_is_the_passive_waitlist(self) -> None:
        for batch in (0, 5):
            sentence = _say(window=None, batch=batch)
            assert sentence.startswith("Passive waitlist:")
            assert "no seat is offered and nobody is notified" in sentence

    def test_open_mode_offers_everyone_up_to_the_free_seats(self) -> None:
        assert _say(batch=0) == (
            "When seats free, one person per free seat, in order of joining, is offered a "
            "seat and gets 2 hours to claim it."
        )

    def test_batched_fifo(self) -> None:
        assert _say(batch=5) == (
            "When a seat frees, the next 5 people in order of joining get 2 hours to claim "
            "it (never more people than free seats)."
        )

    def test_batched_fifo_with_cutoff(self) -> None:
        assert _say(batch=5, cutoff=START - timedelta(hours=6)) == (
            "When a seat frees, the next 5 people in order of joining get 2 hours to claim "
            "it (never more people than free seats). 6 hours before the event (Thu 8 May "
            "2031, 15:00 CEST), everyone still waiting gets a last offer, open until the "
            "event starts."
        )

    def test_batched_lottery_with_cutoff(self) -> None:
        sentence = _say(batch=5, cutoff=START - timedelta(hours=6), lottery=True)
        assert sentence.startswith(
            "When a seat frees, 5 people drawn at random from the queue get 2 hours to claim it"
        )
        assert "6 hours before the event" in sentence and "everyone still waiting" in sentence

    def test_lottery_in_open_mode_and_a_batch_of_one(self) -> None:
        assert "one person per free seat, drawn at random, is offered" in _say(
            batch=0, lottery=True
        )
        assert _say(batch=1, window=timedelta(days=1)).startswith(
            "When a seat frees, the next person in order of joining gets 1 day to claim it"
        )

    def test_a_passed_cutoff_says_first_come_first_served(self) -> None:
        sentence = _say(batch=5, cutoff=NOW - timedelta(minutes=1))
        assert "has passed: seats now go to whoever registers first" in sentence

    def test_durations_read_in_the_largest_whole_unit(self) -> None:
        assert duration(timedelta(hours=1)) == "1 hour"
        assert duration(timedelta(days=7)) == "7 days"
        assert duration(timedelta(minutes=90)) == "90 minutes"
        assert duration(timedelta(days=1, hours=6, minutes=5)) == "1 day 6 hours"
        assert duration(timedelta(hours=3, seconds=40)) == "3 hours 1 minute"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"waitlist_open": False}, "The waitlist is closed"),
        ({"waitlist_time_window": None}, "Passive waitlist"),
        ({"waitlist_batch_size": 0}, "one person per free seat, in order of joining"),
        ({"waitlist_batch_size": 5}, "the next 5 people in order of joining get 2 hours"),
        (
            {"waitlist_batch_size": 5, "waitlist_cutoff_date": "6h"},
            "6 hours before the event",
        ),
        (
            {"waitlist_batch_size": 5, "waitlist_cutoff_date": "6h", "waitlist_lottery_mode": True},
            "5 people drawn at random",
        ),
    ],
)
def test_the_page_shows_the_sentence_of_the_saved_settings(
    client: Client, fields: dict[str, object], expected: str
) -> None:
    event = active_event()
    if fields.get("waitlist_cutoff_date") == "6h":
        fields["waitlist_cutoff_date"] = event.start - timedelta(hours=6)
    for name, value in fields.items():
        setattr(event, name, value)
    event.save()
    client.force_login(event.organization.owner)
    body = client.get(url(event)).content.decode()
    assert expected in body
