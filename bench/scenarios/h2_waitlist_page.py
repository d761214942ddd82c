"""h2: the organiser's waitlist page with 10,000 people queued (docs/spec/ui.md "Fast").

The first page of the queue (50 rows, positions and live offers) and of the offers, the
settings form and its sentence, through the whole HTTP stack with a session log-in.
"""

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from bench import builders
from bench.registry import Measured, scenario

QUEUED = 10_000
OFFERS = 20
CAPACITY = 100


@scenario(
    "h2",
    "GET /manage/events/{id}/waitlist (organiser, first page)",
    data=f"{QUEUED:,} queued, {OFFERS} pending offers, {CAPACITY} seats taken",
)
def waitlist_page() -> Measured:
    event = builders.waitlist_event("h2", capacity=CAPACITY + OFFERS, batch_size=5)
    builders.attendees(event, CAPACITY)
    people = builders.users(QUEUED, "h2-queued")
    builders.queue(event, people)
    builders.offers(event, people[:OFFERS], timezone.now() + timedelta(hours=2))
    builders.analyze()
    client = Client()
    client.force_login(event.organization.owner)
    url = f"/manage/events/{event.pk}/waitlist"
    first = people[0].email

    def call() -> object:
        response = client.get(url)
        assert response.status_code == 200, (response.status_code, response.content[:300])
        body = response.content.decode()
        assert first in body and "Next page" in body, "expected the queue's first page"
        return body

    return call
