"""Load a small demo: one organisation, three open events, five people with known passwords.

Safe to run at every `make run`. Everything is found by its natural key (e-mail, slug,
tier name) and created only when missing, so a second run adds nothing and leaves alone
whatever people did through the API in between. Only the schedule moves, so the events
stay in the coming days. The two seats of the full event are written once, when that
event is created, together with its attendee_count, in the same transaction.

It uses the models directly: the services are the subject of the demo, not its tool.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from events.models import Event, EventRSVP, Organization, OrganizationStaff, TicketTier, Venue

ORG_NAME = "Encore Demo"
ORG_SLUG = "encore-demo"


@dataclass(frozen=True)
class DemoUser:
    email: str
    password: str
    role: str
    first_name: str


OWNER = DemoUser("owner@encore.test", "encore-owner", "organisation owner, Django admin", "Olive")
STAFF = DemoUser("staff@encore.test", "encore-staff", "organisation staff", "Sam")
ATTENDEES = (
    DemoUser("ada@encore.test", "encore-ada", "attendee (has a seat at Full House)", "Ada"),
    DemoUser("ben@encore.test", "encore-ben", "attendee (has a seat at Full House)", "Ben"),
    DemoUser("cleo@encore.test", "encore-cleo", "attendee (free to try everything)", "Cleo"),
)


@dataclass(frozen=True)
class DemoEvent:
    slug: str
    name: str
    days_ahead: int
    max_attendees: int
    description: str
    requires_ticket: bool = False
    waitlist_open: bool = False


RSVP_EVENT = DemoEvent(
    "rsvp-meetup", "RSVP Meetup", 2, 3, "A free meetup: answer yes, no or maybe. Three seats."
)
TICKETED_EVENT = DemoEvent(
    "ticketed-workshop",
    "Ticketed Workshop",
    4,
    8,
    "Five free tickets, or pay at the bank as a supporter. Eight seats in all.",
    requires_ticket=True,
)
FULL_EVENT = DemoEvent(
    "full-house",
    "Full House",
    6,
    2,
    "Both seats are taken: join the waitlist and get an offer when one frees.",
    waitlist_open=True,
)


class Command(BaseCommand):
    help = "Create (or keep) the demo organisation, events and accounts; print how to use them."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--base-url", default="http://127.0.0.1:8000", help="Where the API is served."
        )

    def handle(self, *args: Any, base_url: str, **options: Any) -> None:
        with transaction.atomic():
            owner, staff, *attendees = [
                ensure_user(person) for person in (OWNER, STAFF, *ATTENDEES)
            ]
            org = ensure_organization(owner, staff)
            venue, _ = Venue.objects.get_or_create(
                organization=org, name="Encore Hall", defaults={"address": "1 Demo Street"}
            )
            rsvp_event, _ = ensure_event(org, venue, RSVP_EVENT)
            ticketed_event, _ = ensure_event(org, venue, TICKETED_EVENT)
            ensure_tiers(ticketed_event)
            full_event, created = ensure_event(org, venue, FULL_EVENT)
            if created:
                seat_with_rsvps(full_event, attendees[:2])
        self.print_summary(base_url.rstrip("/"), [rsvp_event, ticketed_event, full_event])

    def print_summary(self, base_url: str, events: list[Event]) -> None:
        people = (OWNER, STAFF, *ATTENDEES)
        width = max(len(p.email) for p in people)
        pwidth = max(len(p.password) for p in people)
        out = self.stdout
        out.write(f"\nDemo accounts (log in with POST {base_url}/api/auth/token/pair):")
        out.write(f"  {'e-mail':<{width}}  {'password':<{pwidth}}  role")
        for p in people:
            out.write(f"  {p.email:<{width}}  {p.password:<{pwidth}}  {p.role}")
        out.write(f"\nDemo events of {ORG_NAME!r}:")
        for event in events:
            seats = f"{event.attendee_count}/{event.max_attendees} seats"
            out.write(f"  {event.name:<18} {seats:<10} {base_url}/api/events/{event.pk}")


def ensure_user(person: DemoUser) -> User:
    """Create the account with its known password; an existing account is left as it is."""
    user = User.objects.filter(email=person.email).first()
    if user is not None:
        return user
    is_admin = person is OWNER
    return User.objects.create_user(
        email=person.email,
        password=person.password,
        first_name=person.first_name,
        is_staff=is_admin,
        is_superuser=is_admin,
    )


def ensure_organization(owner: User, staff: User) -> Organization:
    org, _ = Organization.objects.get_or_create(
        slug=ORG_SLUG,
        defaults={"name": ORG_NAME, "owner": owner, "description": "Demo data of `make run`."},
    )
    OrganizationStaff.objects.get_or_create(organization=org, user=staff)
    return org


def demo_start(days_ahead: int) -> datetime:
    """18:00 UTC `days_ahead` days from today: the same value for every run on one day."""
    day = timezone.now() + timedelta(days=days_ahead)
    return day.replace(hour=18, minute=0, second=0, microsecond=0)


def ensure_event(org: Organization, venue: Venue, spec: DemoEvent) -> tuple[Event, bool]:
    """Create the event open, or move an existing one's schedule back into the coming days."""
    start = demo_start(spec.days_ahead)
    end = start + timedelta(hours=3)
    schedule = {
        "start": start,
        "end": end,
        "check_in_starts_at": start - timedelta(hours=1),
        "check_in_ends_at": end,
    }
    return Event.objects.update_or_create(
        organization=org,
        slug=spec.slug,
        defaults=schedule,
        create_defaults={
            **schedule,
            "name": spec.name,
            "description": spec.description,
            "status": Event.Status.OPEN,
            "venue": venue,
            "max_attendees": spec.max_attendees,
            "requires_ticket": spec.requires_ticket,
            "waitlist_open": spec.waitlist_open,
        },
    )


def ensure_tiers(event: Event) -> None:
    TicketTier.objects.get_or_create(
        event=event,
        name="Free",
        defaults={"payment_method": TicketTier.PaymentMethod.FREE, "total_quantity": 5},
    )
    TicketTier.objects.get_or_create(
        event=event,
        name="Supporter",
        defaults={
            "payment_method": TicketTier.PaymentMethod.OFFLINE,
            "price": Decimal("15.00"),
            "currency": "EUR",
        },
    )


def seat_with_rsvps(event: Event, users: list[User]) -> None:
    """Write YES RSVPs and set attendee_count from the rows that exist (new event only)."""
    EventRSVP.objects.bulk_create(
        [EventRSVP(event=event, user=user, status=EventRSVP.Status.YES) for user in users]
    )
    event.attendee_count = EventRSVP.objects.filter(
        event=event, status=EventRSVP.Status.YES
    ).count()
    event.save(update_fields=["attendee_count"])
