"""The waitlist design's path; the code lives in events.eligibility.enums."""

from events.eligibility.enums import NextStep, Reasons

__all__ = ["NextStep", "Reasons"]
