"""docs/spec/seed-tables.md configuration matrix, the rows where Encore does better than the seed: only
useful offers are made, deadlines hold, leaving and cancelling free the offer, cutoff
offers reserve nothing, one seat per offer, and soft skips.
"""

from datetime import timedelta

import pytest
import time_machine
from django.db import transaction

from accounts.tests.factories import make_user
from events import tasks
from events.core.tests.factories import make_tier
from events.models import Event, EventWaitList, Ticket, TicketTier, WaitlistOffer
from events.ticketing.tests.ticket_helpers import cart, offline_tier
from events.waitlist import services as waitlist_service
from events.waitlist.tests.waitlist_builders import (
    START,
    T0,
    WINDOW,
    Reason,
    Status,
    active_event,
    active_ticketed_event,
    give_offer,
    ids,
    offered_ids,
    offers_of,
    passes,
    queue_in_order,
    reload,
    statuses,
)
from events.waitlist.tests.waitlist_matrix_support import _admin_rsvp_yes, _at_t0, at

__all__ = ["_at_t0", "passes"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


# -- Encore decisions: where Encore does better than the seed -------------------------------
class TestOnlyUsefulOffers:
    """Offers go out only where they can be turned into a seat."""

    @staticmethod
    def _sold_out_tier(capacity: int, *, sold: int, quantity: int) -> tuple[Event, TicketTier]:
        """A ticketed event with room left, but a tier that can sell only `quantity`."""
        event, tier, _ = active_ticketed_event(capacity, sold=sold, waitlist_batch_size=5)
        TicketTier.objects.filter(pk=tier.pk).update(total_quantity=quantity)
        return event, tier

    def test_no_offer_while_every_tier_on_sale_is_sold_out(self):
        event, _ = self._sold_out_tier(10, sold=5, quantity=5)
        queue_in_order(event, 3)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "no_spots"
        assert offers_of(event) == []

    def test_a_batch_is_capped_at_the_tickets_left_held_seats_included(self):
        event, _ = self._sold_out_tier(10, sold=5, quantity=8)  # 3 tickets left
        first, *rest = queue_in_order(event, 5)
        give_offer(event, first)  # holds one of them

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.offers_created == 2
        assert offered_ids(event) == ids([first, *rest[:2]])

    def test_a_tier_not_on_sale_yet_counts_for_nothing(self):
        event, _ = self._sold_out_tier(10, sold=5, quantity=5)
        make_tier(event, name="Late release", sales_start_at=T0 + timedelta(days=1))
        queue_in_order(event, 3)

        assert waitlist_service.process_waitlist_for_event(event.pk).status == "no_spots"

    def test_an_unlimited_tier_on_sale_leaves_the_event_capacity_as_the_bound(self):
        event, _ = self._sold_out_tier(10, sold=5, quantity=5)
        make_tier(event, name="Standing")
        queue_in_order(event, 7)

        assert waitlist_service.process_waitlist_for_event(event.pk).offers_created == 5

    def test_pending_tickets_count_as_attendees(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event, _, _ = active_ticketed_event(3, sold=2)
        unpaid_tier = offline_tier(event)
        [waiting] = queue_in_order(event, 1)

        response = api(make_user()).post(f"/events/{event.pk}/checkout", cart((unpaid_tier, 1)))
        assert response.status_code == 201
        assert response.json()["tickets"][0]["status"] == Ticket.Status.PENDING

        assert waitlist_service.process_waitlist_for_event(event.pk).status == "no_spots"
        assert offers_of(event) == []

        # The unpaid ticket lapses: its seat goes to the queue.
        moment = T0 + timedelta(hours=unpaid_tier.payment_due_hours, minutes=1)
        with (
            time_machine.travel(moment, tick=False),
            django_capture_on_commit_callbacks(execute=True),
        ):
            tasks.expire_unpaid_tickets()
        assert offered_ids(event) == {waiting.pk}

    @pytest.mark.parametrize(
        "fields",
        [
            pytest.param({"status": Event.Status.CANCELLED}, id="cancelled"),
            pytest.param({"status": Event.Status.CLOSED}, id="closed"),
            pytest.param({"status": Event.Status.DRAFT}, id="draft"),
            pytest.param(
                {"start": T0 - timedelta(hours=3), "end": T0 - timedelta(hours=1)}, id="finished"
            ),
            pytest.param({"start": T0, "end": T0 + timedelta(hours=3)}, id="started"),
            pytest.param({"max_attendees": 0}, id="unlimited"),
            pytest.param({"rsvp_before": T0 - timedelta(minutes=1)}, id="rsvps-closed"),
        ],
    )
    def test_no_offer_where_it_is_of_no_use(self, fields):
        capacity = fields.pop("max_attendees", 3)
        event = active_event(capacity, attendees=1, **fields)
        queue_in_order(event, 2)

        result = waitlist_service.process_waitlist_for_event(event.pk)

        assert result.status == "disabled"
        assert offers_of(event) == []
        assert event.pk not in waitlist_service.nudge_open_waitlists()

    def test_a_passed_rsvp_deadline_does_not_stop_offers_of_a_ticketed_event(self):
        event, _, _ = active_ticketed_event(3, sold=1, rsvp_before=T0 - timedelta(minutes=1))
        queue_in_order(event, 1)

        assert waitlist_service.process_waitlist_for_event(event.pk).status == "ok"
        assert offers_of(event)[0].expires_at == T0 + WINDOW

    def test_the_sweeper_never_meets_a_born_expired_offer(self, django_capture_on_commit_callbacks):
        """Offers past the RSVP deadline would expire at birth: the sweep would then tell
        the queue "your offer expired" about offers never sent, and rotate everyone."""
        event = active_event(3, attendees=1, rsvp_before=T0 + timedelta(minutes=30))
        queue_in_order(event, 4)

        with (
            time_machine.travel(T0 + timedelta(hours=1), tick=False),
            django_capture_on_commit_callbacks(execute=True),
        ):
            waitlist_service.nudge_open_waitlists()
            waitlist_service.expire_waitlist_offers()

        assert offers_of(event) == []
        assert not EventWaitList.objects.filter(last_offer_expired_at__isnull=False).exists()

    def test_an_event_starting_now_gets_no_offer(self):
        event = active_event(3, attendees=1, start=T0 + timedelta(hours=1))
        queue_in_order(event, 1)

        with time_machine.travel(event.start, tick=False):
            assert waitlist_service.process_waitlist_for_event(event.pk).status == "disabled"

        assert offers_of(event) == []


class TestDeadlines:
    """expires_at = min(now + window, event.start, rsvp_before)."""

    def test_the_window_when_it_ends_first(self):
        event = active_event(3, attendees=1, rsvp_before=T0 + timedelta(hours=5))
        queue_in_order(event, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert offers_of(event)[0].expires_at == T0 + WINDOW

    def test_the_start_when_it_comes_first(self):
        event = active_event(3, attendees=1, start=T0 + timedelta(minutes=45))
        queue_in_order(event, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert offers_of(event)[0].expires_at == T0 + timedelta(minutes=45)

    def test_the_rsvp_deadline_when_it_comes_first(self):
        event = active_event(3, attendees=1, rsvp_before=T0 + timedelta(minutes=30))
        queue_in_order(event, 1)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert offers_of(event)[0].expires_at == T0 + timedelta(minutes=30)


class TestLeavingAndCancelling:
    def test_leaving_works_after_the_waitlist_is_closed(self, api):
        event = active_event(2, attendees=2, waitlist_open=False)
        [member] = queue_in_order(event, 1)

        response = api(member).delete(f"/events/{event.pk}/waitlist/leave")

        assert response.status_code == 204
        assert not EventWaitList.objects.filter(event=event).exists()

    def test_leaving_expires_a_held_offer_and_hands_the_seat_on(
        self, api, passes, django_capture_on_commit_callbacks
    ):
        event = active_event(3, attendees=2, waitlist_batch_size=1)
        first, second = queue_in_order(event, 2)
        waitlist_service.process_waitlist_for_event(event.pk)
        assert offered_ids(event) == {first.pk}

        with django_capture_on_commit_callbacks(execute=True):
            response = api(first).delete(f"/events/{event.pk}/waitlist/leave")

        assert response.status_code == 204
        [left] = WaitlistOffer.objects.filter(event=event, user=first)
        assert (left.status, left.revoked_reason) == (Status.EXPIRED, "")
        assert statuses(passes) == ["ok", "ok"]  # the setup's pass, then the leave's
        assert offered_ids(event) == {second.pk}

    def test_cancelling_revokes_and_uncancelling_offers_again(
        self, api, django_capture_on_commit_callbacks
    ):
        event = active_event(3, attendees=2)
        [member] = queue_in_order(event, 1)
        waitlist_service.process_waitlist_for_event(event.pk)
        owner = api(event.organization.owner)

        with django_capture_on_commit_callbacks(execute=True):
            assert owner.post(f"/event-admin/{event.pk}/status/cancelled").status_code == 200
        [revoked] = WaitlistOffer.objects.filter(event=event)
        assert (revoked.status, revoked.revoked_reason) == (Status.REVOKED, Reason.EVENT_CANCELLED)

        with django_capture_on_commit_callbacks(execute=True):
            assert owner.post(f"/event-admin/{event.pk}/status/open").status_code == 200
        assert offered_ids(event) == {member.pk}  # a system revoke keeps the user eligible


class TestCutoffOffersReserveNothing:
    def _cutoff_holder_and_reservation(self, event):
        cutoff_holder, reserved_for = queue_in_order(event, 2)
        give_offer(event, reserved_for, expires_at=event.waitlist_cutoff_date + WINDOW)
        give_offer(event, cutoff_holder, expires_at=event.start, cutoff=True)
        return cutoff_holder, reserved_for

    def test_a_cutoff_holder_never_nets_out_someone_elses_reservation(self, api):
        cutoff = START - timedelta(hours=6)
        event = active_event(3, attendees=2, waitlist_cutoff_date=cutoff)
        cutoff_holder, reserved_for = self._cutoff_holder_and_reservation(event)

        with time_machine.travel(cutoff + timedelta(minutes=1), tick=False):
            refused = api(cutoff_holder).post(f"/events/{event.pk}/rsvp/yes")
            claimed = api(reserved_for).post(f"/events/{event.pk}/rsvp/yes")

        assert refused.status_code == 409
        assert refused.json()["code"] == "event_is_full"
        assert at(refused.json()["active_offer_expires_at"]) == event.start  # still counts down
        assert claimed.status_code == 200

    def test_a_staff_registration_refused_by_the_locked_check_shows_the_countdown(self, api):
        cutoff = START - timedelta(hours=6)
        event = active_event(3, attendees=2, waitlist_cutoff_date=cutoff)
        cutoff_holder, _ = self._cutoff_holder_and_reservation(event)

        with time_machine.travel(cutoff + timedelta(minutes=1), tick=False):
            refused = _admin_rsvp_yes(api, event, cutoff_holder)

        assert refused.status_code == 409
        assert refused.json()["code"] == "event_is_full"
        assert at(refused.json()["active_offer_expires_at"]) == event.start

    def test_nor_at_checkout(self, api):
        cutoff = START - timedelta(hours=6)
        event, tier, _ = active_ticketed_event(3, sold=2, waitlist_cutoff_date=cutoff)
        cutoff_holder, _ = self._cutoff_holder_and_reservation(event)

        with time_machine.travel(cutoff + timedelta(minutes=1), tick=False):
            refused = api(cutoff_holder).post(f"/events/{event.pk}/checkout", cart((tier, 1)))

        assert refused.status_code == 409
        assert refused.json()["code"] == "event_is_full"
        assert at(refused.json()["active_offer_expires_at"]) == event.start


class TestOneSeatPerOffer:
    def test_an_offer_holder_may_buy_their_seat_but_not_two(self, api):
        event, tier, _ = active_ticketed_event(10, sold=9)
        [holder] = queue_in_order(event, 1)
        give_offer(event, holder)

        refused = api(holder).post(f"/events/{event.pk}/checkout", cart((tier, 2)))
        bought = api(holder).post(f"/events/{event.pk}/checkout", cart((tier, 1)))

        assert refused.status_code == 409
        assert refused.json()["code"] == "event_is_full"
        assert bought.status_code == 201
        assert reload(event).attendee_count == 10

    def test_others_may_take_the_seats_nobody_holds(self, api):
        event, tier, _ = active_ticketed_event(10, sold=7)
        holder, _ = queue_in_order(event, 2)
        give_offer(event, holder)

        too_many = api(make_user()).post(f"/events/{event.pk}/checkout", cart((tier, 3)))
        enough = api(make_user()).post(f"/events/{event.pk}/checkout", cart((tier, 2)))

        assert too_many.status_code == 409
        assert too_many.json()["code"] == "spots_reserved_for_waitlist"
        assert enough.status_code == 201


class TestSoftSkip:
    def test_an_organiser_revoke_keeps_the_user_skipped(self):
        event = active_event(3, attendees=2, waitlist_batch_size=1)
        first, second = queue_in_order(event, 2)
        waitlist_service.process_waitlist_for_event(event.pk)
        waitlist_service.revoke_offer(event.pk, offers_of(event)[0].pk)

        waitlist_service.process_waitlist_for_event(event.pk)
        Event.objects.filter(pk=event.pk).update(max_attendees=10)
        waitlist_service.process_waitlist_for_event(event.pk)

        assert offered_ids(event) == {second.pk}
        assert offered_ids(event, Status.REVOKED) == {first.pk}

    @pytest.mark.parametrize("reason", [Reason.EVENT_CANCELLED, Reason.WAITLIST_CLOSED])
    def test_a_system_revoke_leaves_the_user_first_in_line(self, reason):
        event = active_event(3, attendees=2, waitlist_batch_size=1)
        first, _ = queue_in_order(event, 2)
        waitlist_service.process_waitlist_for_event(event.pk)
        with transaction.atomic():
            waitlist_service.revoke_pending_offers(reload(event), reason)

        waitlist_service.process_waitlist_for_event(event.pk)

        assert offered_ids(event) == {first.pk}
