"""Errors of recurring event series (stable codes, docs/spec/api.md shape)."""

from common.errors import Conflict, EncoreError


class NotAnOccurrence(EncoreError):
    """`cancel_occurrence` got an instant the rule never produces and no occurrence has."""

    default_code = "not_an_occurrence"
    default_detail = "This date is neither an occurrence of the series' rule nor a scheduled event."


class NotARecurringSeries(Conflict):
    default_code = "not_a_recurring_series"
    default_detail = "This series has no recurrence rule or template."


class AlreadyAnOccurrence(EncoreError):
    """An extra date the series already has: a date of its rule, or an occurrence's start."""

    default_code = "already_an_occurrence"
    default_detail = "The series already has an occurrence at this date."


class NotAnExtraDate(EncoreError):
    default_code = "not_an_extra_date"
    default_detail = "This date is not one of the series' extra dates."


class SeriesPaused(Conflict):
    """A paused (or deleted) series takes no new dates: resume it first."""

    default_code = "series_paused"
    default_detail = "The series is paused; resume it before adding dates."


class SeriesContinued(Conflict):
    """A split series ends at its `until`: dates after it belong to its continuation."""

    default_code = "series_continued"
    default_detail = "This series continues as another series after its end; add the date there."


class AmbiguousDate(EncoreError):
    """A local date given to `cancel-occurrence` holds several occurrences of the series."""

    default_code = "ambiguous_date"
    default_detail = (
        "The series has several occurrences on this date; give the occurrence's time with "
        "its UTC offset."
    )


class UntilInPast(EncoreError):
    """A manual `generate` whose `until` lies before now or before the cursor: a pass may
    never move the cursor back (a deleted occurrence would come back on the next pass)."""

    default_code = "until_in_past"
    default_detail = "`until` lies in the past or before what is already generated."


class SeriesSlugTaken(Conflict):
    """The slug is another series' current slug, or a former one that still redirects."""

    default_code = "slug_taken"
    default_detail = "Another series of this organisation uses or used this slug."


class SeriesTemplateField(EncoreError):
    """A field of a series template sent to the event PATCH that the series routes own
    (422, as those routes refuse it): the answer names the route to use instead."""

    status_code = 422
    default_code = "is_series_template"
    default_detail = "This event is a series template; edit it through its series."
