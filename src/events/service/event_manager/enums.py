"""The waitlist design's path; the code lives in events.eligibility.enums."""

from events.eligibility.enums import Reasons

__all__ = ["Reasons"]
