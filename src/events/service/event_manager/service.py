"""The waitlist design's path; the code lives in events.eligibility.pipeline."""

from events.eligibility.pipeline import EligibilityService

__all__ = ["EligibilityService"]
