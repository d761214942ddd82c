"""Helpers of the event page tests: fetch the page or the region, read the region."""

import re

from django.test import Client

from events.models import Event

REGION = re.compile(r'<section id="your-status".*?</section>', re.S)


def event_path(event: Event) -> str:
    return f"/events/{event.pk}"


def page_body(client: Client, event: Event, status: int = 200) -> str:
    response = client.get(event_path(event))
    assert response.status_code == status, response.content[:500]
    return response.content.decode()


def region_of(body: str) -> str:
    """The "Your status" region of a page or of the partial."""
    match = REGION.search(body)
    assert match is not None, body[:2000]
    return match.group(0)


def status_region(client: Client, event: Event) -> str:
    return region_of(page_body(client, event))


def has_button(region: str, name: str) -> bool:
    return re.search(rf"<button[^>]*>{re.escape(name)}</button>", region) is not None


def text_of(html: str) -> str:
    """The visible text, tags dropped and whitespace collapsed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())
