"""Template filters for times as people read them (common.human_time), in a given zone.

`{{ event.start|in_zone:zone }}` → "Tue 3 Mar 2026, 19:00 CET" (German: "Dienstag, 3. März
2026, 19:00 CET"); `{{ offer.expires_at|until }}` → "in 23 minutes". Pages pass the zone
from `web.views.access.viewer_zone`, so a time reads the same as in the viewer's e-mails.
"""

from datetime import datetime

from django import template
from django.utils import timezone

from common.human_time import format_human, humanize_until

register = template.Library()


@register.filter
def in_zone(moment: datetime | None, zone_name: str) -> str:
    if moment is None:
        return ""
    return format_human(moment, zone_name or "UTC")


@register.filter
def until(moment: datetime | None) -> str:
    if moment is None:
        return ""
    return humanize_until(moment, timezone.now())


@register.filter
def iso(moment: datetime | None) -> str:
    """The machine-readable form for `<time datetime>` and the countdown script."""
    return moment.isoformat() if moment is not None else ""
