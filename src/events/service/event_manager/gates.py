"""The waitlist design's path; the code lives in events.eligibility.gates (the held count in
events.selectors.waitlist)."""

from events.eligibility.gates import AvailabilityGate
from events.selectors.waitlist import held_offer_count as _pending_offer_count_for_check

__all__ = ["AvailabilityGate", "_pending_offer_count_for_check"]
