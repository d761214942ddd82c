"""Template filters for times as people read them (common.human_time), in a given zone,
and for the people in table rows.

`{{ event.start|in_zone:zone }}` → "Tue 3 Mar 2026, 19:00 CET" (German: "Dienstag, 3. März
2026, 19:00 CET"); `{{ offer.expires_at|until }}` → "in 23 minutes". Pages pass the zone
from `web.views.access.viewer_zone`, so a time reads the same as in the viewer's e-mails.
"""

from datetime import datetime
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

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


@register.filter
def person(user: Any) -> SafeString:
    """A queue member or offer holder in a table row: the name (when there is one) and
    the e-mail, which every row shows (docs/spec/ui.md). A filter, not an include: the waitlist
    page has one per row (docs/spec/quality.md h2)."""
    if user.display_name != user.email:
        return format_html(
            '<span class="person-name">{}</span> <span class="person-email">{}</span>',
            user.display_name,
            user.email,
        )
    return format_html('<span class="person-email">{}</span>', user.email)
