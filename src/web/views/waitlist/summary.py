"""What the chosen waitlist settings will do, in one or two sentences (docs/spec/seed-tables.md
"Configuration matrix" in words), for the organiser's waitlist page.

`describe_settings` is pure: it reads the five settings and the event's start, so the
page can describe the saved settings and, later, unsaved ones the same way.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils.translation import gettext, ngettext

from common.human_time import format_human


@dataclass(frozen=True)
class WaitlistSettings:
    """The Event fields that configure the waitlist (docs/spec/seed-tables.md, issue 12 parties)."""

    waitlist_open: bool
    waitlist_time_window: timedelta | None
    waitlist_batch_size: int
    waitlist_cutoff_date: datetime | None
    waitlist_lottery_mode: bool
    waitlist_max_party_size: int = 1
    waitlist_party_policy: str = "strict"

    @classmethod
    def of(cls, event: object) -> "WaitlistSettings":
        return cls(**{name: getattr(event, name) for name in cls.__dataclass_fields__})


def describe_settings(
    settings: WaitlistSettings, *, start: datetime, now: datetime, zone: str
) -> str:
    """One row of the configuration matrix in words, in the active language."""
    if not settings.waitlist_open:
        return gettext("The waitlist is closed: nobody can join it.")
    window = settings.waitlist_time_window
    if window is None:
        return gettext(
            "Passive waitlist: people can join the queue, but no seat is offered and nobody "
            "is notified when one frees; you offer seats by hand."
        )
    sentence = _batches(settings, duration(window))
    parties = _parties(settings)
    if parties:
        sentence = f"{sentence} {parties}"
    cutoff = settings.waitlist_cutoff_date
    if cutoff is None:
        return sentence
    if cutoff <= now:
        return " ".join(
            [
                sentence,
                gettext("The cutoff (%(at)s) has passed: seats now go to whoever registers first.")
                % {"at": format_human(cutoff, zone)},
            ]
        )
    last_call = gettext(
        "%(before)s before the event (%(at)s), everyone still waiting gets a last offer, "
        "open until the event starts."
    ) % {"before": duration(start - cutoff), "at": format_human(cutoff, zone)}
    return f"{sentence} {last_call[:1].upper()}{last_call[1:]}"


def _batches(settings: WaitlistSettings, window: str) -> str:
    size = settings.waitlist_batch_size
    if size == 0 and settings.waitlist_lottery_mode:
        return gettext(
            "When seats free, one person per free seat, drawn at random, is offered a seat "
            "and gets %(window)s to claim it."
        ) % {"window": window}
    if size == 0:
        return gettext(
            "When seats free, one person per free seat, in order of joining, is offered a "
            "seat and gets %(window)s to claim it."
        ) % {"window": window}
    if settings.waitlist_lottery_mode:
        return ngettext(
            "When a seat frees, %(count)d person drawn at random from the queue gets "
            "%(window)s to claim it (never more people than free seats).",
            "When a seat frees, %(count)d people drawn at random from the queue get "
            "%(window)s to claim it (never more people than free seats).",
            size,
        ) % {"count": size, "window": window}
    return ngettext(
        "When a seat frees, the next person in order of joining gets %(window)s to claim "
        "it (never more people than free seats).",
        "When a seat frees, the next %(count)d people in order of joining get %(window)s "
        "to claim it (never more people than free seats).",
        size,
    ) % {"count": size, "window": window}


def _parties(settings: WaitlistSettings) -> str:
    """Parties in words, when one person may queue for more than their own seat."""
    largest = settings.waitlist_max_party_size
    if largest <= 1:
        return ""
    if settings.waitlist_party_policy == "fill":
        rule = gettext(
            "when the first party does not fit the free seats, smaller parties behind it "
            "may take them, and the first keeps its place."
        )
    else:
        rule = gettext(
            "when the first party does not fit the free seats, the queue waits until it does."
        )
    return gettext(
        "People may queue as a party of up to %(count)d seats; an offer holds the whole "
        "party, and %(rule)s"
    ) % {"count": largest, "rule": rule}


def duration(span: timedelta) -> str:
    """'2 hours', '1 day 6 hours', '90 minutes': to the nearest minute, at most two units
    (an offer window is 1 hour .. 7 days; a cutoff may lie any distance before the start)."""
    minutes = max(round(span.total_seconds() / 60), 0)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if not days and hours and minutes and hours < 2:
        hours, minutes = 0, hours * 60 + minutes  # "90 minutes" rather than "1 hour 30 minutes"
    parts = [
        ngettext("%(count)d day", "%(count)d days", days) % {"count": days} if days else "",
        ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours} if hours else "",
        ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
        if minutes and not days
        else "",
    ]
    return " ".join(part for part in parts if part) or gettext("0 minutes")
