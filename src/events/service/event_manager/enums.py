"""Seed 000's path; the code lives in events.eligibility.enums."""

from events.eligibility.enums import CAPACITY_REASON_CODES, Reasons

__all__ = ["CAPACITY_REASON_CODES", "Reasons"]
