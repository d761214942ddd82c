"""Deleting a user frees every seat, offer and queue place they held, or is refused.

Through the Django admin (one user, "delete selected"), the service and a bare ORM
delete alike: the counters an organiser and the public see drop, the waitlist moves on
(a processing pass runs eagerly on commit and the next member gets an offer), the
user's rows are gone. A user holding a paid ticket, or owning an organisation, is
refused with a message saying what to do, and nothing changes.
"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.messages import get_messages
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.errors import UserDeletionRefused
from accounts.models import User
from accounts.service import user_deletion
from accounts.tests.factories import make_user
from events.departure_errors import HasPaidTickets, OwnsOrganizations
from events.models import Event, EventRSVP, EventWaitList, Ticket, TicketTier, WaitlistOffer
from events.selectors import waitlist as waitlist_selectors
from events.service import user_departure
from events.service.event_manager.manager import EventManager
from events.tests.attendance_builders import blacklist
from events.tests.event_admin_support import snapshot
from events.tests.factories import make_org, make_tier
from events.tests.ticket_helpers import assert_counters_true, buy
from events.tests.waitlist_builders import (
    Status,
    active_event,
    active_ticketed_event,
    give_offer,
    offered_ids,
    passes,
    queue_in_order,
    queued_ids,
    reload,
    statuses,
)

__all__ = ["passes"]  # the fixture, imported for pytest

pytestmark = pytest.mark.django_db


# -- helpers -----------------------------------------------------------------------------
@pytest.fixture
def operator_client() -> Client:
    client = Client()
    client.force_login(make_user(is_staff=True, is_superuser=True))
    return client


def admin_delete(client: Client, user: User):
    """Confirm the admin's delete page of `user` (what the operator's button posts)."""
    return client.post(reverse("admin:accounts_user_delete", args=[user.pk]), {"post": "yes"})


def admin_delete_selected(client: Client, *users: User):
    """Confirm "Delete selected users" on the user changelist."""
    return client.post(
        reverse("admin:accounts_user_changelist"),
        {
            "action": "delete_selected",
            "_selected_action": [str(user.pk) for user in users],
            "post": "yes",
        },
    )


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def public_numbers(api, event: Event) -> tuple[int, int]:
    body = api(None).get(f"/events/{event.pk}").json()
    return body["attendee_count"], body["seats_held"]


def exists(user: User) -> bool:
    return User.objects.filter(pk=user.pk).exists()


def rsvp_yes(event: Event, user: User | None = None) -> User:
    """A YES RSVP through the real writer (locks, counter)."""
    user = user or make_user()
    EventManager(user, event).rsvp(EventRSVP.Status.YES, by_staff=True)
    return user


def paid_ticket(event: Event, user: User | None = None, *, price: str = "20.00") -> Ticket:
    """A box-office style ticket: priced tier, active, paid now."""
    user = user or make_user()
    tier = make_tier(event, price=Decimal(price), payment_method=TicketTier.PaymentMethod.OFFLINE)
    [ticket] = buy(event, tier, user)
    Ticket.objects.filter(pk=ticket.pk).update(status=Ticket.Status.ACTIVE, paid_at=timezone.now())
    ticket.refresh_from_db()
    return ticket


# -- the admin, one user -------------------------------------------------------------------
class TestAdminDeletesAnAttendee:
    def test_a_yes_rsvp_to_a_full_event_frees_the_seat_and_the_head_of_the_queue_is_offered_it(
        self, api, operator_client, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(capacity=3, attendees=2)
        leaving = rsvp_yes(event)
        head, second = queue_in_order(event, 2)
        assert public_numbers(api, event) == (3, 0)

        with django_capture_on_commit_callbacks(execute=True):
            response = admin_delete(operator_client, leaving)

        assert response.status_code == 302
        assert not exists(leaving)
        assert not EventRSVP.objects.filter(user_id=leaving.pk).exists()
        assert statuses(passes) == ["ok"]
        assert offered_ids(event) == {head.pk}  # one seat, one offer
        assert second.pk in queued_ids(event)
        assert public_numbers(api, event) == (2, 1)
        assert (
            reload(event).attendee_count
            == EventRSVP.objects.filter(event=event, status=EventRSVP.Status.YES).count()
        )

    def test_a_free_ticket_is_cancelled_before_it_goes_and_every_counter_stays_true(
        self, api, operator_client, passes, django_capture_on_commit_callbacks
    ):
        event, tier, holders = active_ticketed_event(capacity=2, sold=2)
        [head] = queue_in_order(event, 1)

        with django_capture_on_commit_callbacks(execute=True):
            admin_delete(operator_client, holders[0])

        assert not exists(holders[0])
        assert not Ticket.objects.filter(user_id=holders[0].pk).exists()
        tier.refresh_from_db()
        assert tier.quantity_sold == 1
        assert_counters_true(event)
        assert statuses(passes) == ["ok"]
        assert offered_ids(event) == {head.pk}

    def test_an_unpaid_ticket_of_a_priced_tier_does_not_block_and_is_released(
        self, operator_client, passes, django_capture_on_commit_callbacks
    ):
        event, _, _ = active_ticketed_event(capacity=5)
        tier = make_tier(
            event, price=Decimal("30"), payment_method=TicketTier.PaymentMethod.OFFLINE
        )
        holder = make_user()
        [ticket] = buy(event, tier, holder)
        assert ticket.status == Ticket.Status.PENDING

        with django_capture_on_commit_callbacks(execute=True):
            admin_delete(operator_client, holder)

        assert not exists(holder)
        assert_counters_true(event)
        assert reload(event).attendee_count == 0

    def test_a_pending_offer_releases_its_held_seat_and_the_next_batch_goes_out(
        self, api, operator_client, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(capacity=2, attendees=1)
        offered, waiting = queue_in_order(event, 2)
        give_offer(event, offered)
        assert public_numbers(api, event) == (1, 1)

        with django_capture_on_commit_callbacks(execute=True):
            admin_delete(operator_client, offered)

        assert not exists(offered)
        assert not WaitlistOffer.objects.filter(user_id=offered.pk).exists()
        assert statuses(passes) == ["ok"]
        assert offered_ids(event) == {waiting.pk}
        assert public_numbers(api, event) == (1, 1)  # the seat is now held for `waiting`

    def test_a_queue_place_goes_and_the_members_behind_move_up(
        self, operator_client, django_capture_on_commit_callbacks
    ):
        event = active_event(capacity=1, attendees=1)
        first, leaving, third = queue_in_order(event, 3)
        now = timezone.now()
        assert waitlist_selectors.queue_position(event.pk, third.pk, now) == 3

        with django_capture_on_commit_callbacks(execute=True):
            admin_delete(operator_client, leaving)

        assert not exists(leaving)
        assert queued_ids(event) == {first.pk, third.pk}
        assert waitlist_selectors.queue_position(event.pk, first.pk, now) == 1
        assert waitlist_selectors.queue_position(event.pk, third.pk, now) == 2
        assert reload(event).attendee_count == 1

    def test_a_ban_outlives_the_account(self, operator_client):
        """A blacklist entry naming the user cascades otherwise: the same address would
        register again, unbanned."""
        event = active_event(capacity=5)
        banned = make_user("banned@example.com")
        blacklist(event.organization, user=banned)

        admin_delete(operator_client, banned)

        assert not exists(banned)
        again = make_user("banned@example.com")
        eligibility = EventManager(again, event).check_eligibility()
        assert (eligibility.allowed, eligibility.reason_code) == (False, "blacklisted")

    def test_a_user_holding_nothing_is_deleted_as_before(self, operator_client):
        nobody = make_user()

        response = admin_delete(operator_client, nobody)

        assert response.status_code == 302
        assert not exists(nobody)
        assert any("was deleted successfully" in text for text in messages_of(response))


# -- refusals --------------------------------------------------------------------------------
class TestRefusals:
    def test_a_paid_ticket_refuses_in_the_admin_with_what_to_do_and_nothing_changes(
        self, operator_client, dispatched
    ):
        event, _, _ = active_ticketed_event(capacity=5, name="Gala")
        holder = make_user()
        paid_ticket(event, holder)
        EventWaitList.objects.create(event=active_event(capacity=1, attendees=1), user=holder)
        before = snapshot()

        response = admin_delete(operator_client, holder)

        assert response.status_code == 302
        assert response["Location"] == reverse("admin:accounts_user_change", args=[holder.pk])
        [message] = messages_of(response)
        assert "1 paid ticket" in message and "“Gala”" in message
        assert "Refund" in message and "cancel" in message
        assert exists(holder)
        assert snapshot() == before
        assert dispatched == []

    def test_the_confirmation_page_is_not_offered_for_a_refused_user(self, operator_client):
        event, _, _ = active_ticketed_event(capacity=5)
        holder = make_user()
        paid_ticket(event, holder)

        page = operator_client.get(reverse("admin:accounts_user_delete", args=[holder.pk]))

        assert page.status_code == 302
        assert "paid ticket" in messages_of(page)[0]

    def test_the_service_refuses_with_a_conflict_code(self):
        event, _, _ = active_ticketed_event(capacity=5)
        holder = make_user()
        paid_ticket(event, holder)

        with pytest.raises(HasPaidTickets) as refused:
            user_deletion.delete_user(holder)

        assert isinstance(refused.value, UserDeletionRefused)
        assert (refused.value.status_code, refused.value.code) == (409, "has_paid_tickets")
        assert exists(holder)

    def test_once_refunded_the_user_can_go(
        self, operator_client, django_capture_on_commit_callbacks
    ):
        event, _, _ = active_ticketed_event(capacity=5)
        holder = make_user()
        ticket = paid_ticket(event, holder)
        from events.service import cancellation_service

        cancellation_service.refund_ticket_offline(event, ticket.pk)

        with django_capture_on_commit_callbacks(execute=True):
            admin_delete(operator_client, holder)

        assert not exists(holder)
        assert_counters_true(event)

    def test_a_paid_ticket_of_an_event_that_has_ended_does_not_block(
        self, django_capture_on_commit_callbacks
    ):
        event, _, _ = active_ticketed_event(capacity=5)
        holder = make_user()
        paid_ticket(event, holder)
        past = timezone.now() - timedelta(days=30)
        Event.objects.filter(pk=event.pk).update(start=past, end=past + timedelta(hours=2))

        with django_capture_on_commit_callbacks(execute=True):
            user_deletion.delete_user(holder)

        assert not exists(holder)
        assert_counters_true(event)

    def test_a_priced_ticket_not_paid_yet_at_the_door_does_not_block(self):
        event, _, _ = active_ticketed_event(capacity=5)
        tier = make_tier(
            event, price=Decimal("5"), payment_method=TicketTier.PaymentMethod.AT_THE_DOOR
        )
        holder = make_user()
        buy(event, tier, holder)

        user_deletion.delete_user(holder)

        assert not exists(holder)
        assert_counters_true(event)

    def test_an_organisation_owner_is_refused_and_told_to_hand_it_over(self, operator_client):
        org = make_org(name="Jazz Club")
        before = snapshot()

        response = admin_delete(operator_client, org.owner)

        [message] = messages_of(response)
        assert "“Jazz Club”" in message and "another owner" in message
        # The admin capitalises a message's first letter: the address must not be first.
        page = operator_client.get(response.url).content.decode()
        assert f"The account {org.owner.email} owns" in page
        assert exists(org.owner)
        assert snapshot() == before
        with pytest.raises(OwnsOrganizations):
            user_deletion.delete_user(org.owner)

    def test_every_user_is_checked_before_anything_is_released(self, api, dispatched):
        event = active_event(capacity=2, attendees=1)
        leaving = rsvp_yes(event)
        blocked = make_user()
        ticketed, _, _ = active_ticketed_event(capacity=5)
        paid_ticket(ticketed, blocked)
        before = snapshot()

        with pytest.raises(HasPaidTickets):
            user_deletion.delete_users([leaving, blocked])

        assert exists(leaving) and exists(blocked)
        assert snapshot() == before
        assert dispatched == []


# -- the admin, several users ----------------------------------------------------------------
class TestAdminDeletesSelected:
    def test_two_users_go_together_and_each_event_moves_on(
        self, api, operator_client, passes, django_capture_on_commit_callbacks
    ):
        rsvp_event = active_event(capacity=2)
        a, b = rsvp_yes(rsvp_event), rsvp_yes(rsvp_event)
        ticket_event, _, holders = active_ticketed_event(capacity=1, sold=1)
        ticket_event_head, rsvp_head = make_user(), make_user()
        queue_in_order(ticket_event, [ticket_event_head])
        queue_in_order(rsvp_event, [rsvp_head])
        EventWaitList.objects.create(event=ticket_event, user=b)  # b also queues elsewhere
        give_offer(ticket_event, b)  # ...and holds an offer there (an admin's)
        Event.objects.filter(pk=ticket_event.pk).update(max_attendees=2)

        with django_capture_on_commit_callbacks(execute=True):
            response = admin_delete_selected(operator_client, a, b, holders[0])

        assert response.status_code == 302
        assert any("Successfully deleted 3 users" in text for text in messages_of(response))
        assert not User.objects.filter(pk__in=[a.pk, b.pk, holders[0].pk]).exists()
        assert public_numbers(api, rsvp_event) == (0, 1)
        assert offered_ids(rsvp_event) == {rsvp_head.pk}
        assert_counters_true(ticket_event)
        assert offered_ids(ticket_event) == {ticket_event_head.pk}
        assert "ok" in statuses(passes)  # later passes of the same commit find nobody new

    def test_one_refused_user_stops_the_whole_selection(self, operator_client, dispatched):
        event = active_event(capacity=2)
        free_to_go = rsvp_yes(event)
        blocked = make_user()
        ticketed, _, _ = active_ticketed_event(capacity=5)
        paid_ticket(ticketed, blocked)
        before = snapshot()

        response = admin_delete_selected(operator_client, free_to_go, blocked)

        assert response.status_code == 302
        [message] = messages_of(response)
        assert blocked.email in message and "paid ticket" in message
        assert exists(free_to_go) and exists(blocked)
        assert snapshot() == before
        assert dispatched == []

    def test_the_confirmation_page_still_lists_what_goes(self, operator_client):
        event = active_event(capacity=2)
        a = rsvp_yes(event)

        page = operator_client.post(
            reverse("admin:accounts_user_changelist"),
            {"action": "delete_selected", "_selected_action": [str(a.pk)]},
        )

        assert page.status_code == 200
        assert b"Are you sure" in page.content
        assert exists(a)


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

    locks = [q["sql"] for q in queries.captured_queries if "FOR UPDATE" in q["sql"]]
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
