"""The waitlist design's path; the code lives in events.core.eligibility.gates (the held count in
events.waitlist.selectors.queue)."""

from events.core.eligibility.gates import AvailabilityGate
from events.waitlist.selectors.queue import held_offer_count as _pending_offer_count_for_check

__all__ = ["AvailabilityGate", "_pending_offer_count_for_check"]
