"""The absolute links Encore sends, built in one place from `settings.ENCORE_PUBLIC_URL`.

E-mails, in-app notifications and calendar feeds are read outside the request that made
them, so their links cannot be relative; every one starts with the public origin (by
default what `make run` serves) and follows the paths of the web pages (docs/spec/ui.md, "Links
sent by Encore"), so a link opens a page that exists.
"""

from urllib.parse import urlencode

from django.conf import settings


def absolute_url(path: str) -> str:
    """`path` (starting with "/") under the public origin."""
    return f"{str(settings.ENCORE_PUBLIC_URL).rstrip('/')}{path}"


def event_url(event_id: object) -> str:
    """The attendee's event page (countdown and "Claim my seat" while an offer is held)."""
    return absolute_url(f"/events/{event_id}")


def decline_offer_url(event_id: object) -> str:
    """The page that asks "Decline the offer?" (the offer e-mail's second link): a GET
    only shows the question, the page's button declines."""
    return absolute_url(f"/events/{event_id}/decline")


def series_url(organization_slug: str, series_slug: str) -> str:
    """The public series page."""
    return absolute_url(f"/events/{organization_slug}/series/{series_slug}")


def password_reset_url(uid: str, token: str) -> str:
    """The page that sets a new password for the reset link's account."""
    return absolute_url(f"/password-reset/{uid}/{token}")


def signup_finish_url(uid: str, token: str, next_path: str) -> str:
    """The page that signs a new account in, then goes on to `next_path` (a site path)."""
    query = f"?{urlencode({'next': next_path})}" if next_path and next_path != "/" else ""
    return absolute_url(f"/signup/finish/{uid}/{token}{query}")


def settings_url() -> str:
    """Profile and notification preferences: every e-mail's footer links here."""
    return absolute_url("/me/settings")


def home_url() -> str:
    return absolute_url("/")
