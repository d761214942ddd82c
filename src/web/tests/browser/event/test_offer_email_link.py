"""The offer e-mail's link opens the event page with the countdown and "Claim my seat".

A real SMTP server (aiosmtpd) receives the e-mail the processing pass sends when a seat
frees; the link is taken from its body (built from ENCORE_PUBLIC_URL, pointed at the
live server) and opened in the browser.
"""

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from accounts.tests.factories import make_user
from events.core.services.event_manager import EventManager
from events.models import WaitlistOffer
from events.waitlist.tests.waitlist_builders import active_event, queue_in_order
from notifications.tests.servers import SmtpServer, smtp_backend
from web.tests.browser.event.conftest import OpenAs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def smtp(settings: Any, live_server: Any) -> Iterator[SmtpServer]:
    with smtp_backend(settings) as server:
        settings.ENCORE_PUBLIC_URL = live_server.url
        yield server


def test_the_link_in_the_offer_email_opens_the_offer_on_the_event_page(
    smtp: SmtpServer, open_as: OpenAs, live_server: Any
) -> None:
    event = active_event(1, name="Late-night recital")
    attendee = make_user()
    EventManager(attendee, event).rsvp("yes")
    [member] = queue_in_order(event, 1)

    EventManager(attendee, event).rsvp("no")  # a seat frees: the pass offers it and mails

    assert WaitlistOffer.objects.get(event=event, user=member).status == "pending"
    [message] = [m for m in smtp.messages if m["To"] == member.email]
    body = message.get_body(preferencelist=("plain",))
    assert body is not None
    link = re.search(rf"{re.escape(live_server.url)}/events/[0-9a-f-]+", body.get_content())
    assert link is not None, body.get_content()
    assert link.group(0) == f"{live_server.url}/events/{event.pk}"

    page = open_as(member, link.group(0))
    region = page.get_by_role("status", name="Your status")
    expect(region).to_contain_text("A seat is held for you until")
    expect(region.get_by_role("timer")).to_be_visible()
    expect(region.get_by_role("button", name="Claim my seat")).to_be_visible()
