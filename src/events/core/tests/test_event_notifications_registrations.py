"""ticket_created, ticket_cancelled and rsvp_confirmation reach exactly the attendee
concerned, after the commit, with the event's time in the organisation's zone. Observed
through the stored `Notification` rows and the locmem outbox, every action inside the
`committed` fixture (event_notifications_support).
"""

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.eligibility.refusals import EligibilityRefused
from events.core.services import admin_rsvp_service
from events.core.services.event_manager import EventManager
from events.core.tests.event_notifications_support import (
    VIENNA_START,
    VIENNA_START_FORMATTED,
    Committed,
    committed,
    context_of,
    exactly_once,
    recipients,
    rsvp,
    vienna_org,
)
from events.core.tests.factories import make_event, make_staff, make_tier
from events.models import Event, Ticket
from events.ticketing.errors import AlreadyCancelled, TierSoldOut
from events.ticketing.services import cancellation as cancellation_service
from events.ticketing.services import ticket_admin as ticket_admin_service
from events.ticketing.services.batch_tickets import BatchTicketService, CartItem
from events.ticketing.tests.ticket_helpers import free_tier, offline_tier, ticketed_event
from notifications.models import Notification

__all__ = ["committed"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


# -- ticket_created ------------------------------------------------------------------------
class TestTicketCreated:
    def test_a_checkout_tells_the_buyer_once_listing_the_cart(self, committed: Committed) -> None:
        event = ticketed_event(organization=vienna_org(), start=VIENNA_START)
        standing, seated = free_tier(event, name="Standing"), free_tier(event, name="Seated")
        buyer = make_user()

        with committed():
            tickets = BatchTicketService(event, buyer).create_batch(
                [CartItem(seated.pk, 1), CartItem(standing.pk, 2)]
            )

        assert recipients("ticket_created") == exactly_once(buyer)
        context = context_of("ticket_created", buyer)
        assert context["ticket_id"] == str(tickets[0].pk)
        assert context["tier_name"] == "Seated"
        assert context["ticket_status"] == "active"
        assert context["ticket_count"] == 3
        assert [t["ticket_id"] for t in context["tickets"]] == [str(t.pk) for t in tickets]
        assert [t["tier_name"] for t in context["tickets"]] == ["Seated", "Standing", "Standing"]
        assert context["event_start_formatted"] == VIENNA_START_FORMATTED
        assert [message.to for message in mail.outbox] == [[buyer.email]]

    def test_an_offline_ticket_says_it_waits_for_payment(self, committed: Committed) -> None:
        event = ticketed_event()
        buyer = make_user()

        with committed():
            BatchTicketService(event, buyer).create_batch([CartItem(offline_tier(event).pk, 1)])

        assert context_of("ticket_created", buyer)["ticket_status"] == "pending"

    def test_a_box_office_sale_tells_the_buyer_not_the_staff(self, committed: Committed) -> None:
        event = ticketed_event()
        tier = make_tier(event, name="Door", payment_method="at_the_door")
        staff, buyer = make_staff(event.organization), make_user()

        with committed():
            ticket = ticket_admin_service.sell_at_box_office(event, staff, buyer.pk, tier.pk)

        assert recipients("ticket_created") == exactly_once(buyer)
        assert context_of("ticket_created", buyer)["ticket_id"] == str(ticket.pk)

    def test_a_refused_checkout_tells_nobody(self, committed: Committed) -> None:
        event = ticketed_event()
        tier = free_tier(event, total_quantity=1)

        with committed(), pytest.raises(TierSoldOut):
            BatchTicketService(event, make_user()).create_batch([CartItem(tier.pk, 2)])

        assert recipients("ticket_created") == Counter()


# -- ticket_cancelled ----------------------------------------------------------------------
def bought(event: Event, tier: Any, buyer: User, count: int = 1) -> list[Ticket]:
    """Tickets from a real checkout; its own ticket_created stays uncommitted (not run)."""
    return BatchTicketService(event, buyer).create_batch([CartItem(tier.pk, count)])


CANCELLATIONS: dict[str, Callable[[Event, Ticket], Any]] = {
    "by the holder": lambda event, ticket: cancellation_service.cancel_ticket_by_user(
        ticket.user, ticket.pk
    ),
    "by staff": lambda event, ticket: cancellation_service.cancel_ticket_by_staff(event, ticket.pk),
    "refunded offline": lambda event, ticket: cancellation_service.refund_ticket_offline(
        event, ticket.pk
    ),
}


class TestTicketCancelled:
    @pytest.mark.parametrize("cancel", CANCELLATIONS.values(), ids=CANCELLATIONS.keys())
    def test_every_cancellation_path_tells_the_ticket_holder(
        self, committed: Committed, cancel: Callable[[Event, Ticket], Any]
    ) -> None:
        event = ticketed_event(organization=vienna_org(), start=VIENNA_START)
        tier = free_tier(event, name="Standing")
        owner, bystander = make_user(), make_user()
        [ticket] = bought(event, tier, owner)
        bought(event, tier, bystander)

        with committed():
            cancel(event, ticket)

        assert recipients("ticket_cancelled") == exactly_once(owner)
        context = context_of("ticket_cancelled", owner)
        assert (context["ticket_id"], context["tier_name"]) == (str(ticket.pk), "Standing")
        assert context["event_start_formatted"] == VIENNA_START_FORMATTED

    def test_the_unpaid_sweep_tells_each_holder_once(self, committed: Committed) -> None:
        start = datetime(2031, 3, 1, 12, 0, tzinfo=UTC)
        event = ticketed_event(start=start + timedelta(days=30))
        tier = offline_tier(event, payment_due_hours=72)
        late_payer, other_late_payer, paid_up = make_user(), make_user(), make_user()
        with time_machine.travel(start, tick=False):
            two = bought(event, tier, late_payer, 2)
            [other] = bought(event, tier, other_late_payer)
        with time_machine.travel(start + timedelta(hours=72), tick=False):
            bought(event, tier, paid_up)  # still within its 72 hours at the sweep

        with committed(), time_machine.travel(start + timedelta(hours=73), tick=False):
            result = ticket_admin_service.expire_unpaid_tickets()

        assert result.cancelled_tickets == 3
        assert recipients("ticket_cancelled") == exactly_once(late_payer, other_late_payer)
        context = context_of("ticket_cancelled", late_payer)
        assert sorted(t["ticket_id"] for t in context["tickets"]) == sorted(str(t.pk) for t in two)
        assert context_of("ticket_cancelled", other_late_payer)["ticket_id"] == str(other.pk)

    def test_a_refused_cancellation_tells_nobody(self, committed: Committed) -> None:
        event = ticketed_event()
        [ticket] = bought(event, free_tier(event), make_user())
        cancellation_service.cancel_ticket_by_staff(event, ticket.pk)

        with committed(), pytest.raises(AlreadyCancelled):
            cancellation_service.cancel_ticket_by_staff(event, ticket.pk)

        assert recipients("ticket_cancelled") == Counter()


# -- rsvp_confirmation ---------------------------------------------------------------------
class TestRsvpConfirmation:
    @pytest.mark.parametrize("answer", ["yes", "no", "maybe"])
    def test_every_answer_is_confirmed_with_its_status(
        self, committed: Committed, answer: str
    ) -> None:
        event = make_event(vienna_org(), start=VIENNA_START)
        person = make_user()

        with committed():
            EventManager(person, event).rsvp(answer)

        assert recipients("rsvp_confirmation") == exactly_once(person)
        context = context_of("rsvp_confirmation", person)
        assert context["status"] == answer
        assert context["event_start_formatted"] == VIENNA_START_FORMATTED

    def test_changing_the_answer_confirms_each_answer(self, committed: Committed) -> None:
        event = make_event()
        person = make_user()

        with committed():
            EventManager(person, event).rsvp("yes")
        with committed():
            EventManager(person, event).rsvp("no")

        statuses = list(
            Notification.objects.filter(notification_type="rsvp_confirmation")
            .order_by("created_at")
            .values_list("context__status", flat=True)
        )
        assert statuses == ["yes", "no"]

    def test_staff_answering_for_someone_confirms_to_that_person(
        self, committed: Committed
    ) -> None:
        event = make_event()
        person = make_user()

        with committed():
            admin_rsvp_service.set_rsvp(event, person, "yes")

        assert recipients("rsvp_confirmation") == exactly_once(person)

    def test_over_http(self, api: Any, committed: Committed) -> None:
        event = make_event()
        person = make_user()

        with committed():
            response = api(person).post(f"/events/{event.pk}/rsvp/maybe")

        assert response.status_code in (200, 201), response.content
        assert context_of("rsvp_confirmation", person)["status"] == "maybe"

    def test_a_refused_answer_confirms_nothing(self, committed: Committed) -> None:
        event = make_event(max_attendees=1)
        rsvp(event, "yes")
        Event.objects.filter(pk=event.pk).update(attendee_count=1)
        event.refresh_from_db()

        with committed(), pytest.raises(EligibilityRefused):
            EventManager(make_user(), event).rsvp("yes")

        assert recipients("rsvp_confirmation") == Counter()
