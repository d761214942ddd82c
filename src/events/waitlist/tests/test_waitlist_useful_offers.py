"""The one rule of useful offers, spelt twice (a predicate and a filter), must agree.

`offers_are_useful` decides a processing pass and the expired notice; its filter
`useful_offer_events` is what the hourly nudge scans. An event one accepts and the other
does not would be a pass never nudged, or a nudge that only ever answers "disabled".
"""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from events.core.tests.factories import make_event, make_org
from events.models import Event, Venue
from events.waitlist.services.useful_offers import offers_are_useful, useful_offer_events

WINDOW = timedelta(hours=2)
DAY = timedelta(days=1)


def _venue(capacity: int) -> Venue:
    return Venue.objects.create(organization=make_org(), name=f"Hall {capacity}", capacity=capacity)


#: name → (Event fields over an active, open, limited event; whether offers are useful)
VARIANTS: dict[str, tuple[dict[str, Any], bool]] = {
    "active": ({}, True),
    "queue closed": ({"waitlist_open": False}, False),
    "legacy, no window": ({"waitlist_time_window": None}, False),
    "draft": ({"status": Event.Status.DRAFT}, False),
    "closed": ({"status": Event.Status.CLOSED}, False),
    "cancelled": ({"status": Event.Status.CANCELLED}, False),
    "started": ({"start": -DAY}, False),
    "rsvps still open": ({"rsvp_before": DAY}, True),
    "rsvps closed": ({"rsvp_before": -DAY}, False),
    "ticketed, rsvp_before past": ({"rsvp_before": -DAY, "requires_ticket": True}, True),
    "unlimited": ({"max_attendees": 0}, False),
    "venue capacity only": ({"max_attendees": 0, "venue": 8}, True),
    "venue without capacity": ({"venue": 0}, True),
    "unlimited everywhere": ({"max_attendees": 0, "venue": 0}, False),
}


def _event(fields: dict[str, Any]) -> Event:
    now = timezone.now()
    values: dict[str, Any] = {
        "waitlist_open": True,
        "waitlist_time_window": WINDOW,
        "max_attendees": 5,
        "start": 7 * DAY,
    }
    values.update(fields)
    for moment in ("start", "rsvp_before"):
        if moment in values:
            values[moment] = now + values[moment]
    if "venue" in values:
        values["venue"] = _venue(values["venue"])
    return make_event(**values)


@pytest.mark.django_db
@pytest.mark.parametrize("name", VARIANTS)
def test_the_predicate_and_the_filter_agree(name):
    fields, useful = VARIANTS[name]
    event = _event(fields)
    now = timezone.now()

    assert offers_are_useful(event, now) is useful
    assert Event.objects.filter(useful_offer_events(now), pk=event.pk).exists() is useful


@pytest.mark.django_db
def test_an_organiser_offer_needs_no_window_and_nothing_else_changes():
    now = timezone.now()
    for fields, useful in VARIANTS.values():
        event = _event(fields)
        legacy = fields == {"waitlist_time_window": None}
        assert offers_are_useful(event, now, by_organiser=True) is (useful or legacy)
