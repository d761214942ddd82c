"""The organiser's objects the API fuzz test (test_api_fuzz.py) runs against: an organisation
with staff, members, a blacklist entry, a membership request and a venue; an RSVP event
with a waitlist holding queue entries, a live and a lapsed offer; a ticketed event with a
tier, paid and unpaid tickets; a recurring series with occurrences; notifications. The
`world` fixture builds them, and the served OpenAPI document (`api_json`).
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.core import signals
from django.db import close_old_connections
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_member,
    make_org,
    make_staff,
    make_tier,
)
from events.models import (
    Blacklist,
    EventWaitList,
    Invitation,
    OrganizationMembershipRequest,
    Ticket,
    TicketTier,
    Venue,
    WaitlistOffer,
)
from events.series.tests.recurrence_builders import generate, make_rule, make_series
from events.waitlist.tests.waitlist_builders import give_offer
from notifications.models import Notification, NotificationType


# -- the organiser's objects -------------------------------------------------------------------
@dataclass
class World:
    """An organiser and the ids the fuzzer may put into paths, grouped per path family."""

    organiser: User
    #: Path-parameter values that belong together (an event and its own sub-objects).
    event_admin: list[dict[str, Any]] = field(default_factory=list)
    organization_admin: list[dict[str, Any]] = field(default_factory=list)
    public: list[dict[str, Any]] = field(default_factory=list)
    #: Ids a request body may refer to, by field name.
    body_ids: dict[str, list[Any]] = field(default_factory=dict)

    def candidates(self, path: str) -> list[dict[str, Any]]:
        if path.startswith("/api/event-admin/"):
            return self.event_admin
        if path.startswith("/api/organization-admin/"):
            return self.organization_admin
        return self.public


def build_world() -> World:
    organiser = make_user(first_name="Olga")
    org = make_org(organiser, accept_membership_requests=True)
    venue = Venue.objects.create(organization=org, name="Hall", capacity=40)
    staffer = make_staff(org)
    member = make_member(org)
    applicant = make_user()
    request = OrganizationMembershipRequest.objects.create(organization=org, user=applicant)
    banned = Blacklist.objects.create(organization=org, email="banned@example.com")

    # An RSVP event, full, with a queue and one live offer.
    rsvp_event = make_event(
        org, max_attendees=3, waitlist_open=True, waitlist_time_window=timedelta(hours=2)
    )
    attendees = fill_with_rsvps(rsvp_event, 3)
    waiting = [make_user() for _ in range(3)]
    entries = [EventWaitList.objects.create(event=rsvp_event, user=u) for u in waiting]
    offer = give_offer(rsvp_event, waiting[0], expires_at=timezone.now() + timedelta(hours=1))
    lapsed = give_offer(rsvp_event, waiting[2], expires_at=timezone.now() - timedelta(hours=1))
    WaitlistOffer.objects.filter(pk=lapsed.pk).update(
        status=WaitlistOffer.WaitlistOfferStatus.EXPIRED
    )
    invitation = Invitation.objects.create(event=rsvp_event, user=member)
    rsvp = rsvp_event.rsvps.get(user=attendees[0])

    # A ticketed event with a free tier and tickets, the organiser holding one.
    ticketed = make_event(org, requires_ticket=True, max_attendees=20, venue=venue)
    tier = make_tier(ticketed, payment_method=TicketTier.PaymentMethod.FREE, total_quantity=10)
    holders = fill_with_tickets(ticketed, tier, 2)
    ticket = ticketed.tickets.get(user=holders[0])
    own_ticket = ticketed.tickets.create(tier=tier, user=organiser)
    unpaid = ticketed.tickets.create(tier=tier, user=make_user(), status=Ticket.Status.PENDING)

    # A recurring series with generated occurrences.
    series = make_series(org, rule=make_rule(dtstart=timezone.now() + timedelta(days=1)))
    occurrences = generate(series)

    for n in range(3):
        Notification.objects.create(
            user=organiser,
            notification_type=NotificationType.choices[0][0],
            title=f"Note {n}",
            body="Body",
            in_app=True,
        )
    notification = Notification.objects.filter(user=organiser).first()
    assert notification is not None

    world = World(organiser=organiser)
    world.event_admin = [
        {
            "event_id": rsvp_event.pk,
            "rsvp_id": rsvp.pk,
            "invitation_id": invitation.pk,
            "entry_id": entries[1].pk,
            "offer_id": offer.pk,
        },
        {"event_id": rsvp_event.pk, "offer_id": lapsed.pk, "entry_id": entries[2].pk},
        {"event_id": ticketed.pk, "tier_id": tier.pk, "ticket_id": ticket.pk},
        {"event_id": ticketed.pk, "ticket_id": unpaid.pk},
        *({"event_id": event.pk} for event in occurrences[:1]),
        {"event_id": series.template_event_id},
    ]
    world.organization_admin = [
        {
            "slug": org.slug,
            "series_id": series.pk,
            "venue_id": venue.pk,
            "request_id": request.pk,
            "entry_id": banned.pk,
            "user_id": member.pk,
        },
        {"slug": org.slug, "user_id": staffer.pk},
    ]
    world.public = [
        {
            "event_id": rsvp_event.pk,
            "slug": org.slug,
            "series_id": series.pk,
            "org_slug": org.slug,
            "series_slug": series.slug,
            "notification_id": notification.pk,
        },
        {"event_id": ticketed.pk, "ticket_id": own_ticket.pk},
    ]
    world.body_ids = {
        "user_id": [member.pk, staffer.pk, applicant.pk, waiting[1].pk, attendees[1].pk],
        "waitlist_entry_id": [entries[1].pk, entries[2].pk],
        "tier_id": [tier.pk],
    }
    return world


@pytest.fixture
def api_json(client: Any) -> dict[str, Any]:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def world(api_json: dict[str, Any]) -> Iterator[World]:
    # As Django's test client does around its requests: the end of a request must not
    # close the test's connection, whose transaction holds the seeded objects. (After
    # `api_json`, as the test client connects the signal again when it is done.)
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield build_world()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
