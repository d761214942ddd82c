"""/event-admin/{event_id}/ticket-tiers: creating, changing and deleting ticket tiers, and
the free general-admission tier a ticketed event gets by default.
"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from events.core.tests.factories import fill_with_tickets
from events.models import Event, TicketTier
from events.ticketing.services import tiers as ticket_tier_service
from events.ticketing.tests.ticket_helpers import buy, free_tier, ticketed_event

pytestmark = pytest.mark.django_db


# -- tiers ------------------------------------------------------------------------------------
def tiers_url(event: Event, tier: TicketTier | None = None) -> str:
    base = f"/event-admin/{event.pk}/ticket-tiers"
    return f"{base}/{tier.pk}" if tier else base


class TestTiers:
    def test_create_tier_with_every_field(self, api):
        event = ticketed_event()
        owner = event.organization.owner
        starts = timezone.now() + timedelta(days=1)
        body = {
            "name": "Supporter",
            "description": "Thanks!",
            "price": "30.00",
            "currency": "CHF",
            "payment_method": "offline",
            "total_quantity": 50,
            "sales_start_at": starts.isoformat(),
            "sales_end_at": (starts + timedelta(days=2)).isoformat(),
            "max_tickets_per_user": 2,
            "payment_due_hours": 24,
        }

        response = api(owner).post(tiers_url(event), body)

        assert response.status_code == 201, response.json()
        data = response.json()
        assert data["quantity_sold"] == 0
        assert data["remaining"] == 50
        assert Decimal(data["price"]) == Decimal("30.00")
        tier = TicketTier.objects.get(pk=data["id"])
        assert (tier.event_id, tier.payment_method, tier.payment_due_hours) == (
            event.pk,
            "offline",
            24,
        )

    def test_list_tiers_shows_quantity_sold(self, api):
        event = ticketed_event()
        tier = free_tier(event, total_quantity=5)
        fill_with_tickets(event, tier, 2)

        response = api(event.organization.owner).get(tiers_url(event))

        assert response.status_code == 200
        [row] = response.json()
        assert (row["quantity_sold"], row["remaining"]) == (2, 3)

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"name": "Cheap", "price": "-1"}, "price"),
            ({"name": "Huge", "price": "123456789012.00"}, "price"),
            ({"name": "Taken"}, "__all__"),
        ],
        ids=["negative-price", "too-many-digits", "duplicate-name"],
    )
    def test_invalid_tier_is_400_and_not_created(self, api, body, field):
        event = ticketed_event()
        free_tier(event, name="Taken")

        response = api(event.organization.owner).post(tiers_url(event), body)

        assert response.status_code == 400
        assert response.json()["code"] == "invalid"
        assert field in response.json()["errors"]
        assert TicketTier.objects.filter(event=event).count() == 1

    def test_sale_window_must_end_after_it_starts(self, api):
        event = ticketed_event()
        now = timezone.now()
        body = {
            "name": "Backwards",
            "sales_start_at": now.isoformat(),
            "sales_end_at": (now - timedelta(hours=1)).isoformat(),
        }

        response = api(event.organization.owner).post(tiers_url(event), body)

        assert response.status_code == 400
        assert "sales_end_at" in response.json()["errors"]

    @pytest.mark.parametrize(
        "body",
        [
            {"name": "Naive", "sales_start_at": "2030-01-01T10:00:00"},
            {"name": "Odd", "payment_method": "bitcoin"},
            {"name": "Odd", "total_quantity": -1},
            {"name": "Odd", "unknown": 1},
            {"name": ""},
        ],
    )
    def test_schema_violations_are_422(self, api, body):
        event = ticketed_event()

        response = api(event.organization.owner).post(tiers_url(event), body)

        assert response.status_code == 422
        assert not TicketTier.objects.filter(event=event).exists()

    def test_total_quantity_cannot_go_below_what_was_sold(self, api):
        event = ticketed_event()
        tier = free_tier(event, total_quantity=10)
        fill_with_tickets(event, tier, 4)

        response = api(event.organization.owner).patch(
            tiers_url(event, tier), {"total_quantity": 3}
        )

        assert response.status_code == 400
        assert "total_quantity" in response.json()["errors"]
        tier.refresh_from_db()
        assert tier.total_quantity == 10

    def test_more_to_sell_enqueues_waitlist_processing(
        self, api, dispatched, django_capture_on_commit_callbacks
    ):
        event = ticketed_event()
        tier = free_tier(event, total_quantity=4)
        owner = event.organization.owner

        with django_capture_on_commit_callbacks(execute=True):
            lower = api(owner).patch(tiers_url(event, tier), {"name": "Same size"})
        assert lower.status_code == 200
        assert dispatched == []

        with django_capture_on_commit_callbacks(execute=True):
            unlimited = api(owner).patch(tiers_url(event, tier), {"total_quantity": None})

        assert unlimited.status_code == 200
        assert unlimited.json()["total_quantity"] is None
        assert dispatched == [event.pk]

    def test_tier_with_tickets_cannot_be_deleted_even_when_all_are_cancelled(self, api, user):
        event = ticketed_event()
        tier = free_tier(event)
        [ticket] = buy(event, tier, user)
        owner = event.organization.owner
        assert (
            api(owner).post(f"/event-admin/{event.pk}/tickets/{ticket.pk}/cancel").status_code
            == 200
        )

        response = api(owner).delete(tiers_url(event, tier))

        assert response.status_code == 409
        assert response.json()["code"] == "tier_has_tickets"
        assert TicketTier.objects.filter(pk=tier.pk).exists()

    def test_unused_tier_is_deleted(self, api):
        event = ticketed_event()
        tier = free_tier(event)

        assert api(event.organization.owner).delete(tiers_url(event, tier)).status_code == 204

        assert not TicketTier.objects.filter(pk=tier.pk).exists()


class TestDefaultTier:
    def test_ticketed_event_without_tiers_gets_a_free_general_admission_tier(self, api, user):
        event = ticketed_event()

        tier = ticket_tier_service.ensure_default_tier(event)

        assert tier is not None
        assert (tier.name, tier.price, tier.payment_method, tier.total_quantity) == (
            "General admission",
            Decimal("0"),
            TicketTier.PaymentMethod.FREE,
            None,
        )
        body = {"items": [{"tier_id": str(tier.pk), "count": 1}]}
        assert api(user).post(f"/events/{event.pk}/checkout", body).status_code == 201

    def test_is_idempotent_and_leaves_existing_tiers_alone(self):
        event = ticketed_event()
        own = free_tier(event, name="Early bird")

        assert ticket_tier_service.ensure_default_tier(event) is None
        assert list(TicketTier.objects.filter(event=event)) == [own]

    def test_rsvp_events_get_no_tier(self):
        event = ticketed_event(requires_ticket=False)

        assert ticket_tier_service.ensure_default_tier(event) is None
        assert not TicketTier.objects.filter(event=event).exists()
