"""Query budgets of the eligibility pipeline (docs/spec/quality.md): fixed, small, and 0 for the gate."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.tests.factories import make_user
from events.core.eligibility.context import load_context
from events.core.eligibility.gates import AvailabilityGate, Intent, TicketSalesGate
from events.core.eligibility.pipeline import EligibilityService
from events.core.eligibility.types import EventUserEligibility
from events.core.tests.attendance_builders import blacklist, invite, queue
from events.core.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_member,
    make_org,
    make_tier,
)
from events.models import Event, OrganizationMember, Venue

pytestmark = pytest.mark.django_db

BUDGET = 8


def _count_check(user, event_id) -> tuple[int, EventUserEligibility]:
    """Queries of one full check, from a bare event row (nothing preloaded)."""
    event = Event.objects.get(pk=event_id)
    with CaptureQueriesContext(connection) as queries:
        eligibility = EligibilityService(user, event).check_eligibility()
    return len(queries), eligibility


def _busy_event(attendees: int, *, requires_ticket: bool) -> tuple[Event, object]:
    """An event with a venue, a queue, members, blacklist rows and `attendees` attendees."""
    org = make_org()
    venue = Venue.objects.create(organization=org, name="Hall", capacity=100)
    event = make_event(
        org,
        venue=venue,
        max_attendees=attendees or 1,
        requires_ticket=requires_ticket,
        waitlist_open=True,
        event_type=Event.EventType.MEMBERS_ONLY,
    )
    user = make_member(org)
    if requires_ticket:
        tier = make_tier(event, total_quantity=attendees or None)
        if attendees:
            fill_with_tickets(event, tier, attendees)
    elif attendees:
        fill_with_rsvps(event, attendees)
    queue(event, *[make_user() for _ in range(3)], user)
    invite(event, make_user())
    blacklist(org, email="someone-else@example.com")
    return event, user


@pytest.mark.parametrize("requires_ticket", [False, True], ids=["rsvp", "ticketed"])
def test_check_eligibility_costs_the_same_for_0_and_30_attendees(requires_ticket):
    empty, empty_user = _busy_event(0, requires_ticket=requires_ticket)
    busy, busy_user = _busy_event(30, requires_ticket=requires_ticket)

    empty_count, empty_answer = _count_check(empty_user, empty.pk)
    busy_count, busy_answer = _count_check(busy_user, busy.pk)

    assert empty_count == busy_count <= BUDGET
    assert empty_answer.allowed is True
    assert busy_answer.reason_code in {"event_is_full", "sold_out"}
    assert busy_answer.waitlist_position == 4


def test_check_eligibility_with_a_preloaded_event_costs_one_query_per_kind():
    """With organisation and venue loaded (as the routes do): the user row query, plus tiers."""
    event, user = _busy_event(5, requires_ticket=True)
    loaded = Event.objects.select_related("organization", "venue").get(pk=event.pk)

    with CaptureQueriesContext(connection) as queries:
        EligibilityService(user, loaded).check_eligibility()

    assert len(queries) == 2


def test_an_anonymous_check_of_a_capped_event_costs_one_query_for_held_seats():
    event = make_event(max_attendees=5)
    loaded = Event.objects.select_related("organization", "venue").get(pk=event.pk)

    with CaptureQueriesContext(connection) as queries:
        answer = EligibilityService(AnonymousUser(), loaded).check_eligibility()

    assert answer.allowed is True
    assert len(queries) == 1


def test_an_anonymous_check_of_an_unlimited_event_costs_no_query():
    event = make_event()
    loaded = Event.objects.select_related("organization", "venue").get(pk=event.pk)

    with CaptureQueriesContext(connection) as queries:
        answer = EligibilityService(AnonymousUser(), loaded).check_eligibility()

    assert answer.allowed is True
    assert len(queries) == 0


class TestGatesAreQueryFree:
    def test_availability_gate_does_no_query_even_with_a_venue(self, django_assert_num_queries):
        org = make_org()
        venue = Venue.objects.create(organization=org, name="Cellar", capacity=2)
        event = make_event(org, venue=venue, waitlist_open=True)
        fill_with_rsvps(event, 2)
        user = make_user()
        queue(event, user)
        bare = Event.objects.get(pk=event.pk)  # venue not loaded: the context must have it
        ctx = load_context(user, bare, bare.start)

        with django_assert_num_queries(0):
            refusal = AvailabilityGate().check(ctx, Intent(seats=1))

        assert refusal is not None
        assert (refusal.reason_code, refusal.next_step, refusal.waitlist_position) == (
            "event_is_full",
            "wait_for_open_spot",
            1,
        )

    def test_ticket_sales_gate_does_no_query(self, django_assert_num_queries):
        event = make_event(requires_ticket=True)
        tier = make_tier(event, total_quantity=1)
        fill_with_tickets(event, tier, 1)
        user = make_user()
        ctx = load_context(user, Event.objects.get(pk=event.pk), event.start)

        with django_assert_num_queries(0):
            refusal = TicketSalesGate().check(ctx, Intent(seats=1))

        assert refusal is not None and refusal.reason_code == "sold_out"


class TestContext:
    def test_the_context_knows_the_users_relation_to_the_event(self):
        event = make_event(event_type=Event.EventType.MEMBERS_ONLY)
        user = make_member(event.organization, status=OrganizationMember.Status.PAUSED)
        invite(event, user, overrides_max_attendees=True)
        queue(event, make_user(), make_user(), user)

        ctx = load_context(user, event, event.start)

        assert ctx.membership_status == "paused"
        assert ctx.has_invitation and ctx.invitation_overrides_capacity
        assert ctx.waitlist_position == 3
        assert not ctx.is_privileged and not ctx.is_blacklisted

    def test_the_queue_position_counts_only_this_events_queue(self):
        event = make_event()
        other_event = make_event()
        user = make_user()
        queue(other_event, make_user(), make_user())
        queue(event, make_user(), user)
        queue(other_event, user)

        assert load_context(user, event, event.start).waitlist_position == 2
        assert load_context(user, other_event, event.start).waitlist_position == 3
