"""Errors of recurring event series (stable codes, api.md shape)."""

from common.errors import Conflict, EncoreError


class NotAnOccurrence(EncoreError):
    """`cancel_occurrence` got an instant the rule never produces and no occurrence has."""

    default_code = "not_an_occurrence"
    default_detail = "This date is neither an occurrence of the series' rule nor a scheduled event."


class NotARecurringSeries(Conflict):
    default_code = "not_a_recurring_series"
    default_detail = "This series has no recurrence rule or template."
