"""`BatchTicketService`: checkout of a cart (several tiers, several tickets each).

The order of work is the point (docs/spec/domain.md **(fix)**):

1. validate the cart's shape (400, nothing touched);
2. run the eligibility gates for the cart's total (cheap, unlocked, may be stale);
3. in ONE transaction: lock the Event row first, then the requested tiers in pk order,
   re-check every precondition under those locks (tier belongs to the event, sale
   windows, per-user limits, event capacity, tier quantities), write the tickets, move
   `quantity_sold` and `attendee_count`, and take the user off the waitlist;
4. after the commit, the buyer hears `ticket_created` (one notification per cart).

Staff selling at the box office use the same writer with `at_box_office=True`: no
gates and no sale windows, but every capacity and per-user bound still applies.
"""

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from common import metrics
from common.errors import InvalidInput
from events.core.eligibility.capacity import refusals_detailed_after_release
from events.core.eligibility.enums import Reasons
from events.core.eligibility.pipeline import EligibilityService
from events.core.eligibility.refusals import EligibilityRefused
from events.core.eligibility.types import EventUserEligibility
from events.core.selectors.locked_check import LockedCheck
from events.core.services import event_notifications
from events.core.services.locks import adjust_attendee_count, lock_event, lock_tiers
from events.models import Event, Ticket, TicketTier
from events.ticketing.errors import TicketLimitExceeded, TierNotOnSale, TierSoldOut, UnknownTier
from events.ticketing.services.batch_tickets import capacity, tickets
from events.ticketing.services.batch_tickets.tickets import (
    held_ticket_counts,
    initial_status,
    write_tickets,
)
from events.waitlist.selectors import queue as waitlist_selectors

#: One request never writes more tickets than this (a typo must not mint thousands).
MAX_TICKETS_PER_CART = 100
HOLDER_NAME_MAX_LENGTH = 200


@dataclass(frozen=True)
class CartItem:
    tier_id: uuid.UUID
    count: int
    holder_names: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, raw: "CartItem | Mapping[str, Any]") -> "CartItem":
        if isinstance(raw, CartItem):
            return raw
        names = raw.get("holder_names")
        return cls(
            tier_id=raw["tier_id"],
            count=raw["count"],
            holder_names=tuple(names) if names is not None else None,
        )


def validate_cart(raw_items: Sequence["CartItem | Mapping[str, Any]"]) -> list[CartItem]:
    """The cart's shape: not empty, counts ≥ 1, each tier once, names matching counts."""
    items = [CartItem.parse(raw) for raw in raw_items]
    if not items:
        raise InvalidInput({"items": ["The cart is empty."]})
    errors: dict[str, list[str]] = {}
    seen: set[uuid.UUID] = set()
    for index, item in enumerate(items):
        field = f"items.{index}"
        if item.count < 1:
            errors.setdefault(f"{field}.count", []).append("Must be at least 1.")
        if item.tier_id in seen:
            errors.setdefault(f"{field}.tier_id", []).append("Each tier may appear only once.")
        seen.add(item.tier_id)
        errors.update(_holder_name_errors(field, item))
    if not errors and sum(item.count for item in items) > MAX_TICKETS_PER_CART:
        errors["items"] = [f"At most {MAX_TICKETS_PER_CART} tickets per checkout."]
    if errors:
        raise InvalidInput(errors)
    return items


def _holder_name_errors(field: str, item: CartItem) -> dict[str, list[str]]:
    names = item.holder_names
    if names is None:
        return {}
    if len(names) != item.count:
        return {f"{field}.holder_names": ["Give one name per ticket, or none."]}
    if any(len(name) > HOLDER_NAME_MAX_LENGTH for name in names):
        return {f"{field}.holder_names": [f"At most {HOLDER_NAME_MAX_LENGTH} characters."]}
    return {}


class BatchTicketService:
    def __init__(self, event: Event, user: User, *, now: datetime | None = None) -> None:
        self.event = event
        self.user = user
        self.now = now or timezone.now()

    def create_batch(
        self,
        items: Sequence[CartItem | Mapping[str, Any]],
        *,
        at_box_office: bool = False,
        on_written: "Callable[[Event, list[Ticket]], None] | None" = None,
    ) -> list[Ticket]:
        """Sell the cart to `self.user`, all or nothing; returns the new tickets.

        `on_written(event, tickets)` runs inside the sale's transaction, under its locks,
        once the tickets exist (online payment writes its `Payment` there, so no pending
        online ticket is ever without one)."""
        cart = validate_cart(items)
        if not self.event.requires_ticket:
            raise EligibilityRefused(
                EventUserEligibility.refuse(self.event.pk, Reasons.DOES_NOT_REQUIRE_TICKET)
            )
        if not at_box_office:
            seats = sum(item.count for item in cart)
            eligibility = EligibilityService(self.user, self.event, now=self.now).check_eligibility(
                seats=seats
            )
            if not eligibility.allowed:
                metrics.refused(eligibility.reason_code)
                raise EligibilityRefused(eligibility)
        with refusals_detailed_after_release():
            return self._write_cart(cart, at_box_office=at_box_office, on_written=on_written)

    @transaction.atomic
    def _write_cart(
        self,
        cart: list[CartItem],
        *,
        at_box_office: bool,
        on_written: "Callable[[Event, list[Ticket]], None] | None" = None,
    ) -> list[Ticket]:
        event = lock_event(self.event.pk)
        self.event = event
        tiers = lock_tiers(event, [item.tier_id for item in cart])
        requested = [self._tier_of(item, tiers) for item in cart]
        if not at_box_office:
            self._assert_on_sale(requested)
        self._assert_user_limits(event, cart, tiers)
        check = self.assert_event_capacity(_total(cart), requested)
        self._assert_tier_quantities(cart, tiers)
        written: list[Ticket] = []
        for item in cart:
            written += self._write_item(event, item, tiers[item.tier_id], at_box_office)
        adjust_attendee_count(event, len(written))
        self.claim_waitlist_offer_if_any(check)
        if on_written is not None:
            on_written(event, written)
        # A ticket paid online hears `ticket_created` once paid (its receipt).
        event_notifications.notify_tickets_created(
            [t.pk for t in written if not (t.status == Ticket.Status.PENDING and t.payment_id)]
        )
        return written

    # -- the waitlist's hooks (docs/spec/waitlist-design.md names them on this class) --------------------------
    def assert_event_capacity(self, seats: int, tiers: list[TicketTier]) -> LockedCheck:
        """The authoritative capacity check, under the Event lock (`capacity.py`); returns
        what it read, which the claim reuses."""
        return capacity.assert_event_capacity(self.event, self.user.pk, seats, tiers, now=self.now)

    def claim_waitlist_offer_if_any(self, check: LockedCheck | None = None) -> bool:
        """Claim the buyer's live offer, once per cart, under the Event lock (`tickets.py`)."""
        return tickets.claim_waitlist_offer_if_any(self.event, self.user, check)

    # -- checks under the locks ----------------------------------------------------------
    @staticmethod
    def _tier_of(item: CartItem, tiers: dict[uuid.UUID, TicketTier]) -> TicketTier:
        tier = tiers.get(item.tier_id)
        if tier is None:
            raise UnknownTier(extra={"tier_id": str(item.tier_id)})
        return tier

    def _assert_on_sale(self, tiers: list[TicketTier]) -> None:
        for tier in tiers:
            if not tier.is_on_sale(self.now):
                raise TierNotOnSale(extra={"tier_id": str(tier.pk)})

    def _assert_user_limits(
        self, event: Event, cart: list[CartItem], tiers: dict[uuid.UUID, TicketTier]
    ) -> None:
        """Tier and event per-user caps, counting the tickets the user already holds."""
        held = held_ticket_counts(event, self.user.pk)
        for item in cart:
            limit = tiers[item.tier_id].max_tickets_per_user
            already = held.get(item.tier_id, 0)
            if limit is not None and already + item.count > limit:
                raise TicketLimitExceeded(
                    extra={"tier_id": str(item.tier_id), "limit": limit, "already_held": already}
                )
        limit = event.max_tickets_per_user
        already = sum(held.values())
        if limit is not None and already + _total(cart) > limit:
            raise TicketLimitExceeded(extra={"limit": limit, "already_held": already})

    def _assert_tier_quantities(
        self, cart: list[CartItem], tiers: dict[uuid.UUID, TicketTier]
    ) -> None:
        """Each tier's quantity, less the seats other members' offers hold for that tier
        (a per-tier offer reserves its tier, issue 12 item 6); the buyer's own offer is
        held for them. Read under the tier locks, so the numbers are current."""
        limited = [item.tier_id for item in cart if tiers[item.tier_id].remaining is not None]
        held = (
            waitlist_selectors.held_seats_per_tier(
                self.event.pk, limited, exclude_user=self.user.pk, now=self.now
            )
            if limited
            else {}
        )
        for item in cart:
            remaining = tiers[item.tier_id].remaining
            if remaining is None:
                continue
            left = max(remaining - held.get(item.tier_id, 0), 0)
            if left < item.count:
                raise TierSoldOut(extra={"tier_id": str(item.tier_id), "remaining": left})

    # -- writes ----------------------------------------------------------------------------
    def _write_item(
        self, event: Event, item: CartItem, tier: TicketTier, at_box_office: bool
    ) -> list[Ticket]:
        names = item.holder_names or (self.user.display_name,) * item.count
        if at_box_office:
            paid_at = self.now if tier.price > 0 else None
            return write_tickets(
                event, self.user, tier, names, status=Ticket.Status.ACTIVE, paid_at=paid_at
            )
        return write_tickets(event, self.user, tier, names, status=initial_status(tier))


def _total(cart: list[CartItem]) -> int:
    return sum(item.count for item in cart)
