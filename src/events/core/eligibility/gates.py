"""The eligibility gates of docs/spec/domain.md, in order. The first refusal wins.

Gates are pure: they read the `EligibilityContext` loaded by `EligibilityService` and
never query the database (AvailabilityGate's budget is zero queries).
"""

from dataclasses import dataclass
from typing import Any, Protocol

from events.core.eligibility.capacity import availability_refusal, sold_out_refusal
from events.core.eligibility.context import EligibilityContext
from events.core.eligibility.enums import NextStep, Reasons
from events.core.eligibility.types import EventUserEligibility
from events.models import Event, OrganizationMember, TicketTier


@dataclass(frozen=True)
class Intent:
    """What the caller wants: `seats` new seats (0 for an answer that takes none)."""

    seats: int = 1

    @property
    def needs_seat(self) -> bool:
        return self.seats > 0


class Gate(Protocol):
    #: Privileged users (owner, staff) skip the gates that say so.
    skipped_by_privileged: bool

    def check(self, ctx: EligibilityContext, intent: Intent) -> EventUserEligibility | None: ...


def _refuse(
    ctx: EligibilityContext, reason: Reasons, next_step: NextStep | None = None, **extra: Any
) -> EventUserEligibility:
    return EventUserEligibility.refuse(ctx.event.pk, reason, next_step, **extra)


class BlacklistGate:
    skipped_by_privileged = True

    def check(self, ctx: EligibilityContext, intent: Intent) -> EventUserEligibility | None:
        return _refuse(ctx, Reasons.BLACKLISTED) if ctx.is_blacklisted else None


class EventStatusGate:
    skipped_by_privileged = True

    def check(self, ctx: EligibilityContext, intent: Intent) -> EventUserEligibility | None:
        event = ctx.event
        if event.end and event.end < ctx.now:
            return _refuse(ctx, Reasons.EVENT_HAS_FINISHED)
        if event.status != Event.Status.OPEN:
            return _refuse(ctx, Reasons.EVENT_IS_NOT_OPEN, NextStep.WAIT_FOR_EVENT_TO_OPEN)
        return None


class RSVPDeadlineGate:
    skipped_by_privileged = True

    def check(self, ctx: EligibilityContext, intent: Intent) -> EventUserEligibility | None:
        event = ctx.event
        if not event.requires_ticket and event.rsvp_before and event.rsvp_before < ctx.now:
            return _refuse(ctx, Reasons.RSVP_DEADLINE_PASSED)
        return None


class InvitationGate:
    skipped_by_privileged = True

    def check(self, ctx: EligibilityContext, intent: Intent) -> EventUserEligibility | None:
        if ctx.event.event_type == Event.EventType.PRIVATE and not ctx.has_invitation:
            return _refuse(ctx, Reasons.REQUIRES_INVITATION)
        return None


class MembershipGate:
    skipped_by_privileged = True

    def check(self, ctx: EligibilityContext, intent: Intent) -> EventUserEligibility | None:
        if ctx.event.event_type != Event.EventType.MEMBERS_ONLY:
            return None
        if ctx.membership_status is None:
            return _refuse(ctx, Reasons.MEMBERS_ONLY, NextStep.BECOME_MEMBER)
        if ctx.membership_status != OrganizationMember.Status.ACTIVE:
            return _refuse(ctx, Reasons.MEMBERSHIP_INACTIVE)
        return None


class AvailabilityGate:
    """Capacity with reservations netted (docs/spec/waitlist-design.md); applies to everyone, staff included."""

    skipped_by_privileged = False

    def check(self, ctx: EligibilityContext, intent: Intent) -> EventUserEligibility | None:
        if not intent.needs_seat or ctx.invitation_overrides_capacity:
            return None
        if ctx.holds_seat and not ctx.event.requires_ticket:
            return None
        return availability_refusal(
            ctx.event,
            ctx.seat_state(),
            intent.seats,
            standing=ctx.standing,
            now=ctx.now,
            next_batch_at=ctx.offers.next_batch_at,
        )


def tiers_on_sale(ctx: EligibilityContext) -> list[TicketTier]:
    return [tier for tier in ctx.tiers if tier.is_on_sale(ctx.now)]


class TicketSalesGate:
    """Ticketed events need a tier on sale; all of them exhausted means sold out."""

    skipped_by_privileged = False

    def check(self, ctx: EligibilityContext, intent: Intent) -> EventUserEligibility | None:
        if not ctx.event.requires_ticket or not intent.needs_seat:
            return None
        on_sale = tiers_on_sale(ctx)
        if not on_sale:
            return _refuse(ctx, Reasons.NO_TICKETS_ON_SALE)
        if all(tier.remaining == 0 for tier in on_sale):
            return sold_out_refusal(ctx.event, ctx.standing)
        return None


#: Gate 1 (privileged access) is the `skipped_by_privileged` flag on gates 2–6.
GATES: tuple[Gate, ...] = (
    BlacklistGate(),
    EventStatusGate(),
    RSVPDeadlineGate(),
    InvitationGate(),
    MembershipGate(),
    AvailabilityGate(),
    TicketSalesGate(),
)
