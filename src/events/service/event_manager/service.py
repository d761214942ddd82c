"""The waitlist design's path; the code lives in events.core.eligibility.pipeline."""

from events.core.eligibility.pipeline import EligibilityService

__all__ = ["EligibilityService"]
