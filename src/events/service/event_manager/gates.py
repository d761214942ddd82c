"""The waitlist design's path; the code lives in events.eligibility.gates (the held count in .capacity)."""

from events.eligibility.capacity import held_offer_count as _pending_offer_count_for_check
from events.eligibility.gates import AvailabilityGate

__all__ = ["AvailabilityGate", "_pending_offer_count_for_check"]
