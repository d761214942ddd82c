"""Deleting a user who holds a paid ticket, or owns an organisation, is refused with a
message saying what to do, and nothing changes.
"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.errors import UserDeletionRefused
from accounts.service import user_deletion
from accounts.tests.factories import make_user
from events.core.errors import HasPaidTickets, OwnsOrganizations
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import make_org, make_tier
from events.core.tests.user_deletion_support import (
    admin_delete,
    exists,
    messages_of,
    operator_client,
    paid_ticket,
    rsvp_yes,
)
from events.models import Event, EventWaitList, TicketTier
from events.ticketing.tests.ticket_helpers import assert_counters_true, buy
from events.waitlist.tests.waitlist_builders import active_event, active_ticketed_event

__all__ = ["operator_client"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


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
        from events.ticketing.services import cancellation as cancellation_service

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
