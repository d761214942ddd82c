"""/event-admin/{event_id}/box-office: staff sell a ticket to a user at the door."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from events.core.tests.factories import fill_with_tickets
from events.models import Event, EventWaitList, Ticket, TicketTier
from events.ticketing.tests.ticket_helpers import (
    assert_counters_true,
    free_tier,
    offline_tier,
    ticketed_event,
)

pytestmark = pytest.mark.django_db


# -- box office -------------------------------------------------------------------------------
def sell(api: Any, event: Event, buyer: User, tier: TicketTier, **extra: Any) -> Any:
    body = {"user_id": str(buyer.pk), "tier_id": str(tier.pk), **extra}
    return api(event.organization.owner).post(f"/event-admin/{event.pk}/box-office/sell", body)


class TestBoxOffice:
    def test_sells_an_active_ticket_even_for_an_offline_tier(self, api, user):
        event = ticketed_event()
        tier = offline_tier(event)

        response = sell(api, event, user, tier, holder_name="Door Guest")

        assert response.status_code == 201, response.json()
        ticket = Ticket.objects.get(pk=response.json()["id"])
        assert (ticket.user, ticket.status, ticket.holder_name) == (
            user,
            Ticket.Status.ACTIVE,
            "Door Guest",
        )
        assert ticket.paid_at is not None
        assert_counters_true(event)

    @pytest.mark.parametrize(
        "event_fields",
        [{"status": Event.Status.CLOSED}, {"event_type": Event.EventType.PRIVATE}],
        ids=["event-closed", "invitation-needed"],
    )
    def test_skips_the_eligibility_gates(self, api, user, event_fields):
        event = ticketed_event(**event_fields)
        tier = free_tier(event)

        assert sell(api, event, user, tier).status_code == 201

    def test_skips_the_sale_window(self, api, user):
        event = ticketed_event()
        tier = free_tier(event, sales_end_at=timezone.now() - timedelta(hours=1))

        assert sell(api, event, user, tier).status_code == 201

    def test_never_skips_the_capacity_check(self, api, user):
        event = ticketed_event(max_attendees=1)
        tier = free_tier(event)
        fill_with_tickets(event, tier, 1)

        response = sell(api, event, user, tier)

        assert response.status_code == 409
        assert response.json()["code"] == "event_is_full"
        assert not Ticket.objects.filter(user=user).exists()
        assert_counters_true(event)

    def test_never_skips_the_tier_quantity(self, api, user):
        event = ticketed_event()
        tier = free_tier(event, total_quantity=1)
        fill_with_tickets(event, tier, 1)

        response = sell(api, event, user, tier)

        assert response.status_code == 409
        assert response.json()["code"] == "sold_out"

    def test_takes_the_buyer_off_the_waitlist(self, api, user):
        event = ticketed_event(waitlist_open=True)
        tier = free_tier(event)
        EventWaitList.objects.create(event=event, user=user)

        assert sell(api, event, user, tier).status_code == 201

        assert not EventWaitList.objects.filter(event=event, user=user).exists()

    def test_unknown_buyer_is_404(self, api):
        event = ticketed_event()
        tier = free_tier(event)
        ghost = User(pk="00000000-0000-0000-0000-000000000001")

        response = sell(api, event, ghost, tier)

        assert response.status_code == 404
        assert response.json()["code"] == "unknown_user"
        assert not Ticket.objects.exists()

    def test_tier_of_another_event_is_404(self, api, user):
        event = ticketed_event()
        foreign = free_tier(ticketed_event())

        response = sell(api, event, user, foreign)

        assert response.status_code == 404
        assert response.json()["code"] == "unknown_tier"
        assert not Ticket.objects.exists()
