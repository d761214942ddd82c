"""Ticketed lottery passes under contention, on PostgreSQL row locks (issue 12 items 5, 6).

Concurrent passes over two tiers serialise on the Event row: whatever the interleaving,
no tier's holds exceed what it can still sell, nobody holds two pending offers, and
every offer belongs to a recorded draw that replays to exactly its batch.
"""

from collections import Counter

import pytest
from django.db.models import F, Sum

from accounts.tests.factories import make_user
from events.core.tests.factories import fill_with_tickets, make_tier
from events.models import EventWaitList, TicketTier, WaitlistDraw, WaitlistOffer
from events.waitlist import services as waitlist_service
from events.waitlist.services import lottery
from events.waitlist.tests.waitlist_races_support import (
    dispatched,
    race,
    unexpected,
    waitlist_event,
)

__all__ = ["dispatched"]  # fixtures, for pytest

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

Status = WaitlistOffer.WaitlistOfferStatus


def test_concurrent_ticketed_lottery_passes_hold_each_tier_once_and_record_every_draw(
    dispatched,
):
    event = waitlist_event(
        40, requires_ticket=True, waitlist_lottery_mode=True, waitlist_max_party_size=2
    )
    free = TicketTier.PaymentMethod.FREE
    vip = make_tier(event, name="VIP", total_quantity=4, payment_method=free)
    standard = make_tier(event, name="Standard", total_quantity=10, payment_method=free)
    fill_with_tickets(event, vip, 4)
    fill_with_tickets(event, standard, 10)
    for _ in range(8):
        EventWaitList.objects.create(event=event, user=make_user(), tier=vip, party_size=2)
    for _ in range(12):
        EventWaitList.objects.create(event=event, user=make_user())
    for tier, seats in ((vip, 4), (standard, 5)):
        TicketTier.objects.filter(pk=tier.pk).update(total_quantity=F("total_quantity") + seats)

    outcomes = race([lambda: waitlist_service.process_waitlist_for_event(event.pk)] * 10)

    assert not unexpected(outcomes, set()), outcomes
    assert Counter(o.value.status for o in outcomes)["ok"] == 1
    offers = WaitlistOffer.objects.filter(event=event, status=Status.PENDING)
    held = dict(offers.values("tier_id").annotate(n=Sum("seats")).values_list("tier_id", "n"))
    assert held == {vip.pk: 4, standard.pk: 5}
    assert max(Counter(offers.values_list("user_id", flat=True)).values()) == 1
    draws = list(WaitlistDraw.objects.filter(event=event))
    assert {d.tier_id for d in draws} == {vip.pk, standard.pk}
    for draw in draws:
        again = lottery.replay_draw(
            draw.seed, draw.eligible, draw.party_sizes, draw.seats, draw.batch_size, draw.policy
        )
        assert again == draw.selected
        assert offers.filter(batch_id=draw.batch_id).count() == len(draw.selected)
    assert offers.count() == sum(len(d.selected) for d in draws)
