"""d0: the public event list through the whole HTTP stack, no eligibility involved.

A baseline for the d-rows of docs/spec/quality.md: what one anonymous `GET /api/events` page of
50 events costs in routing, selectors, serialisation and pagination.
"""

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from accounts.models import User
from bench.registry import Measured, ScenarioUnavailable, scenario
from events.models import Event, Organization, TicketTier, Venue

EVENTS = 50


def build_events() -> None:
    owner = User.objects.create(email="bench-owner@example.com")
    org = Organization.objects.create(name="Bench Org", slug="bench-org", owner=owner)
    venue = Venue.objects.create(organization=org, name="Bench Hall", capacity=200)
    start = timezone.now() + timedelta(days=1)
    events = [
        Event(
            organization=org,
            name=f"Bench event {n}",
            slug=f"bench-event-{n}",
            status=Event.Status.OPEN,
            start=start + timedelta(hours=n),
            venue=venue,
            max_attendees=100,
            requires_ticket=n % 2 == 0,
        )
        for n in range(EVENTS)
    ]
    for event in events:
        event.apply_defaults()
    Event.objects.bulk_create(events)
    TicketTier.objects.bulk_create(
        [TicketTier(event=e, name="General admission") for e in events if e.requires_ticket]
    )


@scenario("d0", "GET /api/events (anonymous, one page)", data=f"{EVENTS} events, half ticketed")
def event_list() -> Measured:
    build_events()
    client = Client()

    def call() -> object:
        response = client.get("/api/events", {"page_size": EVENTS})
        if response.status_code == 404:
            raise ScenarioUnavailable("GET /api/events answers 404 (no list endpoint yet)")
        assert response.status_code == 200, (response.status_code, response.content[:300])
        results = response.json()["results"]
        assert len(results) == EVENTS, f"expected {EVENTS} events, got {len(results)}"
        return results

    return call
