"""The organiser's waitlist page shows the statistics: the offer figures as text, and the
queue's length over time as a server-rendered SVG that says what it shows."""

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from accounts.tests.factories import make_user
from events.models import Event, WaitlistQueueSample
from events.waitlist.selectors.stats import QueuePoint
from web.tests.waitlist.support import Status, active_event, offer, url
from web.views.waitlist.chart import queue_chart

pytestmark = pytest.mark.django_db

T = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)


def page(client: Client, event: Event) -> str:
    owner = event.organization.owner
    owner.timezone = "UTC"
    owner.save(update_fields=["timezone"])
    client.force_login(owner)
    response = client.get(url(event))
    assert response.status_code == 200
    return response.content.decode()


def figures(body: str) -> dict[str, str]:
    block = re.search(r'<dl class="waitlist-figures">(.*?)</dl>', body, re.S)
    assert block is not None
    pairs = re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", block.group(1), re.S)
    return {html.unescape(name): html.unescape(value) for name, value in pairs}


def svg_of(body: str) -> str | None:
    found = re.search(r'<svg role="img".*?</svg>', body, re.S)
    return found.group(0) if found else None


def test_the_figures_and_the_chart(client: Client) -> None:
    event = active_event(timezone="UTC")
    claimed = offer(event, status=Status.CLAIMED)
    claimed.claimed_at = claimed.created_at + timedelta(minutes=12)
    claimed.save(update_fields=["claimed_at"])
    offer(event, status=Status.EXPIRED)
    offer(event, make_user(), status=Status.EXPIRED, declined_at=T)
    offer(event, status=Status.PENDING)
    WaitlistQueueSample.objects.bulk_create(
        WaitlistQueueSample(event=event, at=T + timedelta(hours=n), length=length)
        for n, length in enumerate([1, 3, 2])
    )

    body = page(client, event)

    assert figures(body) == {
        "Offers sent": "4",
        "Claimed": "1",
        "Declined": "1",
        "Lapsed": "1",
        "Revoked": "0",
        "Claim rate": "33 %",
        "Median time to claim": "12 min",
    }
    svg = svg_of(body)
    assert svg is not None
    assert 'aria-labelledby="queue-chart-title"' in svg
    title = re.search(r'<title id="queue-chart-title">(.*?)</title>', svg, re.S)
    assert title is not None
    summary = html.unescape(title.group(1))
    assert summary == (
        "Queue length over time: 1 on Thu 1 May 2031, 12:00 UTC, "
        "2 on Thu 1 May 2031, 14:00 UTC, at most 3."
    )
    points = re.search(r'<polyline points="([^"]*)"', svg)
    assert points is not None
    coords = points.group(1).split()
    # Three samples, each later one a step, and the last length held to the right edge.
    assert len(coords) == 6
    assert coords[-1].split(",")[0] == "592.0"
    assert "<script" not in svg


def test_the_line_is_drawn_until_now_not_squeezed_into_its_first_pixel() -> None:
    """A burst of joins a minute apart, an hour ago: the line spans the chart."""
    now = T + timedelta(hours=1)
    samples = [QueuePoint(at=T + timedelta(minutes=n), length=n + 1) for n in range(3)]
    chart = queue_chart(samples, "UTC", now=now)
    assert chart is not None
    xs = [float(pair.split(",")[0]) for pair in chart.points.split()]
    assert xs[-1] == 592.0  # the right edge: the last length holds until now
    assert xs[-2] < 30  # the joins themselves sit at the left, a minute apart


def test_before_anything_happened(client: Client) -> None:
    body = page(client, active_event())

    assert figures(body)["Claim rate"] == "—"
    assert svg_of(body) is None
    assert "No queue history yet." in body
