"""The waitlist design's path; the code lives in events.core.eligibility.enums."""

from events.core.eligibility.enums import NextStep, Reasons

__all__ = ["NextStep", "Reasons"]
