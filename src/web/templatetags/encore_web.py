"""Template filters for times as people read them (common.human_time), in a given zone,
for the people in table rows, and for organisers' descriptions written in Markdown.

`{{ event.start|in_zone:zone }}` → "Tue 3 Mar 2026, 19:00 CET" (German: "Dienstag, 3. März
2026, 19:00 CET"); `{{ offer.expires_at|until }}` → "in 23 minutes". Pages pass the zone
from `web.views.access.viewer_zone`, so a time reads the same as in the viewer's e-mails.
"""

from datetime import datetime
from typing import Any

import nh3
from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

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


#: What a description may use: CommonMark's own elements, no raw HTML, no pictures (a
#: picture from another host would report who reads the page).
_MARKDOWN_TAGS = {
    "p", "br", "hr", "em", "strong", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "h3", "h4", "h5", "h6",
}  # fmt: skip
_MARKDOWN = MarkdownIt("commonmark", {"html": False})
_CLEANER = nh3.Cleaner(
    tags=_MARKDOWN_TAGS,
    attributes={"a": {"href", "title"}, "ol": {"start"}},
    url_schemes={"http", "https", "mailto"},
    link_rel="nofollow noopener",
)
#: A description's "# Heading" sits under the page's own h1 and h2.
_HEADING_SHIFT = 2


def _image_as_link(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    """`![words](address)` becomes a link to the picture: nothing loads from elsewhere."""
    token = tokens[idx]
    words = renderer.renderInlineAsText(token.children or [], options, env)
    return format_html('<a href="{}">{}</a>', token.attrGet("src") or "", words)


_MARKDOWN.add_render_rule("image", _image_as_link)


@register.filter
def markdown(text: str | None) -> SafeString:
    """An organiser's description as HTML: Markdown rendered, then sanitised, so neither
    a script nor a `javascript:` link reaches the page."""
    if not text:
        return mark_safe("")
    tokens = _MARKDOWN.parse(text)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + _HEADING_SHIFT)}"
    html = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {})
    return mark_safe(_CLEANER.clean(html))  # sanitised by nh3 just above
