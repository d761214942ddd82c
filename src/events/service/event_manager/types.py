"""The waitlist design's path; the code lives in events.core.eligibility.types."""

from events.core.eligibility.types import EventUserEligibility

__all__ = ["EventUserEligibility"]
