"""Deleting users through the Django admin, one user and "delete selected". The user's seats,
offers and queue places are freed, the counters drop and the waitlist moves on.
"""

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.services.event_manager import EventManager
from events.core.tests.attendance_builders import blacklist
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import make_tier
from events.core.tests.user_deletion_support import (
    admin_delete,
    exists,
    messages_of,
    operator_client,
    paid_ticket,
    public_numbers,
    rsvp_yes,
)
from events.models import Event, EventRSVP, EventWaitList, Ticket, TicketTier, WaitlistOffer
from events.ticketing.tests.ticket_helpers import assert_counters_true, buy
from events.waitlist.selectors import queue as waitlist_selectors
from events.waitlist.tests.waitlist_builders import (
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

__all__ = ["operator_client", "passes"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


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
