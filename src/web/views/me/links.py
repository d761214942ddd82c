"""Where a notification points, as a link on this site.

Encore puts absolute links in a notification's context (`common.links`: `event_url`,
`series_url`, under `ENCORE_PUBLIC_URL`), because e-mails are read outside any request.
On the inbox page the same link is made relative when it is under that origin, so it
opens on whatever host serves the page; anything else is not linked (context data is
never a way off-site).
"""

from typing import Any

from django.conf import settings

LINK_KEYS = ("event_url", "series_url")


def notification_link(context: Any) -> str:
    if not isinstance(context, dict):
        return ""
    origin = str(settings.ENCORE_PUBLIC_URL).rstrip("/")
    for key in LINK_KEYS:
        url = context.get(key)
        if not isinstance(url, str):
            continue
        if url.startswith(f"{origin}/"):
            return url[len(origin) :]
        if url.startswith("/") and not url.startswith("//"):
            return url
    return ""
