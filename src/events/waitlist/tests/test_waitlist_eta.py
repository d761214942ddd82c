"""The honest ETA: each reason it gives no time, the arithmetic, and my-status's shape.

The pure `estimate` (events/waitlist/selectors/eta_rules.py) is checked without a database; `flow_of` (which a selector must
restate, as it may not import the service) is checked against the service's own rule;
my-status shows the block at a fixed number of queries.
"""

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event
from events.models import Event, EventWaitList
from events.waitlist.selectors import eta as waitlist_eta
from events.waitlist.selectors.eta_rules import Flow, QueueFigures, estimate
from events.waitlist.services import offers_are_useful
from events.waitlist.tests.waitlist_builders import (
    START,
    T0,
    WINDOW,
    active_event,
    give_offer,
    queue_in_order,
)

NOW = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)

FLOW = Flow(
    automatic=True,
    window=2 * HOUR,
    batch_size=0,
    lottery=False,
    strict=True,
    cutoff=None,
    latest_deadline=NOW + timedelta(days=7),
)
FIGURES = QueueFigures(
    party_size=1,
    rotated=False,
    places_ahead=4,
    seats_ahead=4,
    largest_party_ahead=1,
    held_seats=2,
    last_hold_ends=NOW + HOUR,
    free_seats=0,
    circulating_seats=2,
    final_call_sent=False,
)


class TestArithmetic:
    def test_rounds_start_when_the_last_hold_ends_and_come_every_window(self):
        # 4 ahead + me = 5 seats of the queue, 2 per round: round 3.
        eta = estimate(FIGURES, FLOW, NOW)

        assert eta == waitlist_eta.Eta(4, 2, NOW + HOUR + 2 * (2 * HOUR), None)

    def test_nothing_held_means_the_first_round_is_now(self):
        figures = replace(FIGURES, held_seats=0, last_hold_ends=None, free_seats=2)

        assert estimate(figures, FLOW, NOW).eta_if_all_ahead_pass == NOW + 2 * (2 * HOUR)

    def test_a_batch_size_below_the_seats_slows_the_rounds(self):
        flow = replace(FLOW, batch_size=1)

        assert estimate(FIGURES, flow, NOW).eta_if_all_ahead_pass == NOW + HOUR + 4 * (2 * HOUR)

    def test_parties_count_seats_and_a_strict_stop_wastes_at_most_one_party_less_one(self):
        figures = replace(
            FIGURES,
            party_size=2,
            places_ahead=2,
            seats_ahead=5,
            largest_party_ahead=3,
            circulating_seats=4,
            free_seats=2,
        )
        # Five seats ahead: once six went out, one was mine; a round surely offers
        # 4 - 3 + 1 = 2 of them (a strict stop leaves fewer than the largest party): round 3.
        assert estimate(figures, FLOW, NOW).eta_if_all_ahead_pass == NOW + HOUR + 2 * (2 * HOUR)

    def test_after_the_cutoff_the_first_round_sends_the_final_call(self):
        flow = replace(FLOW, batch_size=1, cutoff=NOW + 4 * HOUR)

        # Rounds at +1h, +3h, +5h: the first at or after the cutoff.
        assert estimate(FIGURES, flow, NOW).eta_if_all_ahead_pass == NOW + 5 * HOUR

    def test_past_the_cutoff_before_the_final_call_the_next_round_sends_it(self):
        flow = replace(FLOW, batch_size=1, cutoff=NOW - HOUR)

        assert estimate(FIGURES, flow, NOW).eta_if_all_ahead_pass == NOW + HOUR


class TestReasons:
    @pytest.mark.parametrize(
        ("figures", "flow", "reason"),
        [
            (
                replace(FIGURES, held_seats=0, free_seats=0, circulating_seats=0),
                FLOW,
                "depends_on_cancellations",
            ),
            (replace(FIGURES, party_size=3), FLOW, "party_larger_than_seats_in_play"),
            (
                replace(FIGURES, party_size=3),
                replace(FLOW, strict=False),
                "party_larger_than_seats_in_play",
            ),
            (replace(FIGURES, largest_party_ahead=3), FLOW, "blocked_by_larger_party"),
            (
                replace(FIGURES, party_size=2),
                replace(FLOW, strict=False),
                "smaller_parties_may_go_first",
            ),
            (replace(FIGURES, rotated=True), replace(FLOW, lottery=True), "depends_on_the_draw"),
            (FIGURES, replace(FLOW, latest_deadline=NOW + 3 * HOUR), "event_starts_first"),
            (FIGURES, replace(FLOW, latest_deadline=NOW), "event_starts_first"),
            (FIGURES, replace(FLOW, automatic=False), "no_automatic_offers"),
            (
                replace(FIGURES, final_call_sent=True),
                replace(FLOW, cutoff=NOW - HOUR),
                "no_automatic_offers",
            ),
        ],
        ids=[
            "no-seat",
            "party-too-big",
            "party-too-big-fill",
            "blocked-strict",
            "fill-party",
            "lottery-rotated",
            "starts-first",
            "registration-over",
            "passive",
            "final-call-sent",
        ],
    )
    def test_no_time_and_the_reason(self, figures, flow, reason):
        eta = estimate(figures, flow, NOW)

        assert (eta.eta_if_all_ahead_pass, eta.reason) == (None, reason)
        assert reason in waitlist_eta.REASONS

    def test_a_fill_queue_blocked_ahead_still_has_a_time(self):
        """Under fill a party ahead that never fits is skipped, not waited for."""
        eta = estimate(replace(FIGURES, largest_party_ahead=3), replace(FLOW, strict=False), NOW)

        assert eta.reason is None and eta.eta_if_all_ahead_pass is not None


@pytest.mark.django_db
class TestFlowMatchesTheServiceRule:
    @pytest.mark.parametrize(
        "fields",
        [
            {},
            {"waitlist_open": False},
            {"waitlist_time_window": None},
            {"status": Event.Status.CLOSED},
            {"max_attendees": 0},
            {"rsvp_before": T0 - HOUR},
            {"start": T0 - HOUR},
        ],
        ids=[
            "useful",
            "closed-queue",
            "passive",
            "closed-event",
            "unlimited",
            "rsvp-over",
            "started",
        ],
    )
    def test_automatic_offers_iff_the_service_would_make_them(self, fields):
        base: dict[str, Any] = {
            "max_attendees": 5,
            "waitlist_open": True,
            "waitlist_time_window": WINDOW,
            "start": START,
        }
        event = make_event(**(base | fields))
        flow = waitlist_eta.flow_of(event)

        assert (flow.automatic and flow.latest_deadline > T0) == offers_are_useful(event, T0)


@pytest.mark.django_db
class TestFiguresFromTheQueue:
    def test_parties_ahead_count_places_seats_and_the_largest(self):
        with time_machine.travel(T0, tick=False):
            event = active_event(10, attendees=6, waitlist_max_party_size=5)
            people = queue_in_order(event, 5)  # one second apart
            for person, party in zip(people, [2, 3, 1, 4, 5], strict=True):
                EventWaitList.objects.filter(user=person).update(party_size=party)
            give_offer(event, people[2], expires_at=T0 + HOUR)  # holds: not a place ahead
            row = waitlist_eta.entry_with_figures(event, people[3].pk, T0)

        assert row is not None
        figures = waitlist_eta.figures_from_row(row, event, (), T0, position=3)
        assert (figures.places_ahead, figures.seats_ahead, figures.largest_party_ahead) == (2, 5, 3)
        assert (figures.party_size, figures.held_seats, figures.free_seats) == (4, 1, 3)
        assert figures.last_hold_ends == T0 + HOUR


@pytest.mark.django_db
class TestMyStatusShowsTheEta:
    def test_the_waitlist_block(self, api, django_assert_num_queries):
        with time_machine.travel(T0, tick=False):
            event = active_event(10, attendees=9)
            holder, member = make_user(), make_user()
            EventWaitList.objects.create(event=event, user=holder)
            entry = EventWaitList.objects.create(event=event, user=member)
            give_offer(event, holder, expires_at=T0 + HOUR)
            client = api(member)

            with django_assert_num_queries(5):
                body = client.get(f"/events/{event.pk}/my-status").json()

        waitlist = body["waitlist"]
        assert waitlist["position"] == 1
        assert (waitlist["party_size"], waitlist["tier_id"]) == (1, None)
        assert waitlist["token"] == format(entry.token, "016x") and len(waitlist["token"]) == 16
        eta = waitlist["eta"]
        assert (eta["places_ahead"], eta["seats_in_play"], eta["reason"]) == (0, 1, None)
        assert datetime.fromisoformat(eta["eta_if_all_ahead_pass"]) == T0 + HOUR

    def test_no_eta_while_holding_an_offer(self, api):
        with time_machine.travel(T0, tick=False):
            event = active_event(10, attendees=9)
            member = make_user()
            EventWaitList.objects.create(event=event, user=member)
            give_offer(event, member, expires_at=T0 + HOUR)

            body = api(member).get(f"/events/{event.pk}/my-status").json()

        assert body["offer"] is not None
        assert body["waitlist"]["eta"] is None and body["waitlist"]["position"] is None

    def test_a_full_event_says_it_depends_on_cancellations(self, api):
        with time_machine.travel(T0, tick=False):
            event = active_event(10, attendees=10)
            member = make_user()
            EventWaitList.objects.create(event=event, user=member)

            body = api(member).get(f"/events/{event.pk}/my-status").json()

        assert body["waitlist"]["eta"] == {
            "places_ahead": 0,
            "seats_in_play": 0,
            "eta_if_all_ahead_pass": None,
            "reason": "depends_on_cancellations",
        }
