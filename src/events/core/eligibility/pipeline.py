"""`EligibilityService`: may this user do the next thing at this event, and if not, why?"""

from datetime import datetime

from django.utils import timezone

from common.timezones import get_zone
from events.core.eligibility.context import EligibilityContext, load_context
from events.core.eligibility.gates import GATES, Intent
from events.core.eligibility.types import EventUserEligibility
from events.models import Event


class EligibilityService:
    """Prefetches everything in `__init__` (a fixed number of queries), then runs pure gates."""

    def __init__(self, user: object, event: Event, *, now: datetime | None = None) -> None:
        self.user = user
        self.event = event
        self.now = now or timezone.now()
        self.context: EligibilityContext = load_context(user, event, self.now)

    def check_eligibility(self, *, seats: int = 1) -> EventUserEligibility:
        """Run the gates for taking `seats` new seats (0: an answer that takes none)."""
        intent = Intent(seats=seats)
        for gate in GATES:
            if self.context.is_privileged and gate.skipped_by_privileged:
                continue
            refusal = gate.check(self.context, intent)
            if refusal is not None:
                zone_name = getattr(self.user, "timezone", None)
                return refusal.as_seen_by(
                    get_zone(zone_name) if zone_name else None,
                    self.context.offers.own_offer_expires_at,
                )
        return self._allowed()

    def _allowed(self) -> EventUserEligibility:
        ctx = self.context
        return EventUserEligibility(
            allowed=True,
            event_id=self.event.pk,
            waitlist_position=ctx.waitlist_position
            if ctx.offers.own_offer_expires_at is None
            else None,
            active_offer_expires_at=ctx.offers.own_offer_expires_at,
        )
