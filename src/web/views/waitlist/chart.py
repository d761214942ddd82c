"""The queue's length over time as a server-rendered SVG, and the offer figures beside it.

No chart library and no script: the page draws a polyline in a fixed view box from the
samples the statistics selector returns (at most `QUEUE_POINTS`), so it works with
JavaScript off and costs nothing in the browser. The SVG is `role="img"` with a `<title>`
that says what it shows in words; the figures are also in the page as text (a definition
list), so nothing is only in the picture.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from common.human_time import format_human
from events.waitlist.selectors.stats import QueuePoint, WaitlistStats

WIDTH = 600
HEIGHT = 160
PAD = 8


@dataclass(frozen=True)
class QueueChart:
    points: str  # the polyline's "x,y x,y ..." in the view box
    summary: str  # the title: the chart in one sentence
    first_at: str
    last_at: str
    highest: int
    width: int = WIDTH
    height: int = HEIGHT


@dataclass(frozen=True)
class StatsView:
    stats: WaitlistStats
    chart: QueueChart | None
    claim_rate: str  # "50 %" or "" before any outcome
    median_time_to_claim: str


def stats_view(stats: WaitlistStats, zone: str) -> StatsView:
    return StatsView(
        stats=stats,
        chart=queue_chart(stats.queue_length, zone),
        claim_rate=f"{round(stats.claim_rate * 100)} %" if stats.claim_rate is not None else "",
        median_time_to_claim=_duration(stats.median_time_to_claim),
    )


def queue_chart(
    samples: list[QueuePoint], zone: str, now: datetime | None = None
) -> QueueChart | None:
    """A step line (the length holds until the next sample, the last one until now);
    None without samples. Drawn to now, so a burst of joins minutes ago does not squeeze
    the whole line into the chart's first pixel."""
    if not samples:
        return None
    start, end = samples[0].at, samples[-1].at
    span = max((max(now or timezone.now(), end) - start).total_seconds(), 1.0)
    highest = max(point.length for point in samples)
    scale_y = (HEIGHT - 2 * PAD) / max(highest, 1)
    scale_x = (WIDTH - 2 * PAD) / span

    def xy(seconds: float, length: int) -> str:
        return f"{PAD + seconds * scale_x:.1f},{HEIGHT - PAD - length * scale_y:.1f}"

    coords: list[str] = []
    for index, point in enumerate(samples):
        seconds = (point.at - start).total_seconds()
        if index:
            coords.append(xy(seconds, samples[index - 1].length))  # the step
        coords.append(xy(seconds, point.length))
    coords.append(xy(span, samples[-1].length))  # held until now
    first_at, last_at = format_human(start, zone), format_human(end, zone)
    summary = _(
        "Queue length over time: %(first)s on %(first_at)s, %(last)s on %(last_at)s, "
        "at most %(highest)s."
    ) % {
        "first": samples[0].length,
        "first_at": first_at,
        "last": samples[-1].length,
        "last_at": last_at,
        "highest": highest,
    }
    return QueueChart(" ".join(coords), summary, first_at, last_at, highest)


def _duration(value: timedelta | None) -> str:
    """ "2 h 5 min", "12 min", "40 s": how long a claim takes, roughly."""
    if value is None:
        return ""
    seconds = int(value.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return _("%(h)d h %(m)d min") % {"h": hours, "m": minutes}
    if minutes:
        return _("%(m)d min") % {"m": minutes}
    return _("%(s)d s") % {"s": secs}
