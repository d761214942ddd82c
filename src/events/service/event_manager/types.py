"""The waitlist design's path; the code lives in events.eligibility.types."""

from events.eligibility.types import EventUserEligibility

__all__ = ["EventUserEligibility"]
