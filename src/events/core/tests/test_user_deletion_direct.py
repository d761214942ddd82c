"""Deleting a user without the service (the model's own delete), a deletion that failed
half-way finished by a retry, and the lock order of a deletion (PostgreSQL). The user's
seats, offers and queue places are freed, the counters drop and the waitlist moves on.
"""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from accounts.service import user_deletion
from accounts.tests.factories import make_user
from common.compiled_query import expanded
from events.core.errors import HasPaidTickets
from events.core.services import user_departure
from events.core.services.event_manager import EventManager
from events.core.tests.attendance_builders import blacklist
from events.core.tests.factories import make_tier
from events.core.tests.user_deletion_support import exists, paid_ticket, public_numbers, rsvp_yes
from events.models import Event, EventWaitList, Ticket, TicketTier, WaitlistOffer
from events.ticketing.tests.ticket_helpers import assert_counters_true, buy
from events.waitlist.tests.waitlist_builders import (
    Status,
    active_event,
    active_ticketed_event,
    give_offer,
    offered_ids,
    passes,
    queue_in_order,
    reload,
    statuses,
)

__all__ = ["passes"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


# -- without the service: the model's own delete --------------------------------------------
class TestDirectDelete:
    def test_user_delete_releases_the_seat_too(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(capacity=1)
        leaving = rsvp_yes(event)
        [head] = queue_in_order(event, 1)

        with django_capture_on_commit_callbacks(execute=True):
            leaving.delete()

        assert statuses(passes) == ["ok"]
        assert offered_ids(event) == {head.pk}
        assert public_numbers(api, event) == (0, 1)

    def test_a_queryset_delete_of_several_users_releases_each(
        self, passes, django_capture_on_commit_callbacks
    ):
        event, _, holders = active_ticketed_event(capacity=3, sold=3)
        other = active_event(capacity=1)
        rsvp_yes(other, holders[1])
        waiting = queue_in_order(event, 2)

        with django_capture_on_commit_callbacks(execute=True):
            User.objects.filter(pk__in=[holders[0].pk, holders[1].pk]).delete()

        assert_counters_true(event)
        assert reload(event).attendee_count == 1
        assert reload(other).attendee_count == 0
        assert offered_ids(event) == {person.pk for person in waiting}

    def test_a_bare_delete_keeps_the_ban_too(self):
        event = active_event(capacity=5)
        banned = make_user("banned-too@example.com")
        blacklist(event.organization, user=banned)

        banned.delete()

        again = make_user("banned-too@example.com")
        assert EventManager(again, event).check_eligibility().reason_code == "blacklisted"

    def test_a_bare_delete_of_a_paid_ticket_holder_is_refused_too(self):
        event, _, _ = active_ticketed_event(capacity=5)
        holder = make_user()
        paid_ticket(event, holder)

        # The pre_delete receiver raises inside Django's deleting transaction; the
        # savepoint stands for the transaction a shell session would roll back.
        with pytest.raises(HasPaidTickets), transaction.atomic():
            holder.delete()

        assert exists(holder)
        assert Ticket.objects.filter(user=holder, status=Ticket.Status.ACTIVE).count() == 1


# -- half-way failures -------------------------------------------------------------------------
def test_a_deletion_that_failed_half_way_is_finished_by_a_retry(
    monkeypatch, django_capture_on_commit_callbacks
):
    first, second = sorted([active_event(capacity=5), active_event(capacity=5)], key=lambda e: e.pk)
    leaving = rsvp_yes(first)
    rsvp_yes(second, leaving)
    real = user_departure.release_at_event

    def fail_at_the_second(event_id, users):
        if event_id == second.pk:
            raise RuntimeError("connection lost")
        real(event_id, users)

    monkeypatch.setattr(user_departure, "release_at_event", fail_at_the_second)
    with pytest.raises(RuntimeError):
        user_deletion.delete_user(leaving)
    assert exists(leaving)
    assert (reload(first).attendee_count, reload(second).attendee_count) == (0, 1)

    monkeypatch.setattr(user_departure, "release_at_event", real)
    with django_capture_on_commit_callbacks(execute=True):
        user_deletion.delete_user(leaving)

    assert not exists(leaving)
    assert (reload(first).attendee_count, reload(second).attendee_count) == (0, 0)


# -- locks (PostgreSQL) -------------------------------------------------------------------------
@pytest.mark.postgres
def test_each_event_is_released_under_its_lock_taken_first_then_all_tiers_then_tickets():
    event, first_tier, holders = active_ticketed_event(capacity=5, sold=1)
    second_tier = make_tier(event, payment_method=TicketTier.PaymentMethod.FREE)
    other_holder = make_user()
    buy(event, second_tier, other_holder)
    offered = make_user()
    EventWaitList.objects.create(event=event, user=offered)
    give_offer(event, offered)

    with CaptureQueriesContext(connection) as queries:
        user_deletion.delete_users([holders[0], other_holder, offered])

    statements = [expanded(q["sql"]) for q in queries.captured_queries]
    locks = [sql for sql in statements if "FOR UPDATE" in sql]
    tables = [sql.split(" FROM ", 1)[1].split()[0].strip('"') for sql in locks]
    tiers, tickets = TicketTier._meta.db_table, Ticket._meta.db_table
    assert tables[0] == Event._meta.db_table, tables
    assert tables.count(tiers) == 1, tables  # both users' tiers in one pk-ordered lock
    assert tables.index(tiers) < tables.index(tickets), tables
    assert not Ticket.objects.filter(event=event).exists()
    assert not WaitlistOffer.objects.filter(event=event, status=Status.PENDING).exists()
    assert_counters_true(event)
    assert {first_tier.pk, second_tier.pk} == set(
        TicketTier.objects.filter(event=event, quantity_sold=0).values_list("pk", flat=True)
    )
