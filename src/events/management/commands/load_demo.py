"""Load a small demo: one organisation, its open events, a weekly series, known accounts.

Safe to run at every `make run`. Everything is found by its natural key (e-mail, slug,
tier name) and created only when missing, so a second run adds nothing and leaves alone
whatever people did through the API in between. Only the schedule moves, so the events
stay in the coming days (with it each waitlist cutoff, which lies before the start).

The plain events are written with the models. The waitlist events and the series show
the flagship features, so their state is staged through the services, once, when each
is created (`events.management.demo_features`): seats, queues, a live offer on Full
House, a series with a cancelled and an edited date, as a real run would leave them.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from events.management import demo_features
from events.models import Event, EventSeries, Organization, OrganizationStaff, TicketTier, Venue

ORG_NAME = "Encore Demo"
ORG_SLUG = "encore-demo"


@dataclass(frozen=True)
class DemoUser:
    email: str
    password: str
    role: str
    first_name: str


OWNER = DemoUser(
    "owner@encore.test",
    "encore-owner",
    "organiser and Django admin: manage events, waitlists, series (/admin too)",
    "Olive",
)
STAFF = DemoUser(
    "staff@encore.test", "encore-staff", "organisation staff: check-in, waitlist offers", "Sam"
)
ADA = DemoUser(
    "ada@encore.test",
    "encore-ada",
    "holds a live offer on Full House: log in to see the countdown, claim the seat",
    "Ada",
)
BEN = DemoUser(
    "ben@encore.test", "encore-ben", "has a seat at Full House, Lottery Night, Last Call", "Ben"
)
CLEO = DemoUser(
    "cleo@encore.test",
    "encore-cleo",
    "queued on Full House (next in line), seated at Lottery Night",
    "Cleo",
)
DAN = DemoUser(
    "dan@encore.test", "encore-dan", "gave up a Full House seat; queued for the lottery", "Dan"
)
EVE = DemoUser(
    "eve@encore.test",
    "encore-eve",
    "queued on Full House, Lottery Night and Last Call (cutoff soon)",
    "Eve",
)
ATTENDEES = (ADA, BEN, CLEO, DAN, EVE)
#: The offer window of the waitlist events: long enough for the demo's countdown to run.
OFFER_WINDOW = timedelta(hours=48)


@dataclass(frozen=True)
class DemoEvent:
    slug: str
    name: str
    days_ahead: int
    max_attendees: int
    description: str
    requires_ticket: bool = False
    waitlist_open: bool = False
    lottery: bool = False
    #: The waitlist cutoff, this long before the start (moves with the schedule).
    cutoff_before_start: timedelta | None = None


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
    "Both seats are taken; a seat freed and went to the queue's head as a timed offer.",
    waitlist_open=True,
)
LOTTERY_EVENT = DemoEvent(
    "lottery-night",
    "Lottery Night",
    8,
    2,
    "Full, with a lottery waitlist: a freed seat goes to a queued member drawn at random.",
    waitlist_open=True,
    lottery=True,
)
CUTOFF_EVENT = DemoEvent(
    "last-call",
    "Last Call",
    3,
    1,
    "Full; its waitlist cutoff is tomorrow: then everyone queued gets an offer at once.",
    waitlist_open=True,
    cutoff_before_start=timedelta(days=2),
)


class Command(BaseCommand):
    help = "Create (or keep) the demo organisation, events and accounts; print how to use them."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--base-url",
            default="http://127.0.0.1:8000",
            help="Where Encore is served (the origin of the printed links).",
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
            ticketed_event, created = ensure_event(org, venue, TICKETED_EVENT)
            ensure_tiers(ticketed_event)
            if created:
                ada, ben, cleo, *_ = attendees
                demo_features.sell_demo_tickets(ticketed_event, free=cleo, pending=ben, paid=ada)
            waitlist_events = ensure_waitlist_events(org, venue, attendees)
            series, _ = demo_features.ensure_weekly_series(org, venue, demo_start(1))
        events = [rsvp_event, ticketed_event, *waitlist_events]
        for event in events:
            event.refresh_from_db()
        self.print_summary(base_url.rstrip("/"), events, series)

    def print_summary(self, base_url: str, events: list[Event], series: EventSeries) -> None:
        """Page links first (what a person opens); the API is one line for developers."""
        people = (OWNER, STAFF, *ATTENDEES)
        width = max(len(p.email) for p in people)
        pwidth = max(len(p.password) for p in people)
        out = self.stdout
        out.write(f"\nDemo accounts (log in at {base_url}/login):")
        out.write(f"  {'e-mail':<{width}}  {'password':<{pwidth}}  role")
        for p in people:
            out.write(f"  {p.email:<{width}}  {p.password:<{pwidth}}  {p.role}")
        out.write(f"\nDemo events of {ORG_NAME!r} (organisers: {base_url}/manage/{ORG_SLUG}):")
        for event in events:
            seats = f"{event.attendee_count}/{event.max_attendees} seats"
            queue = demo_features.waitlist_summary(event)
            out.write(f"  {event.name:<18} {seats:<10} {queue:<26} {base_url}/events/{event.pk}")
        out.write(f"\nDemo series {series.name!r} (weekly; one date cancelled, one edited):")
        out.write(f"  public page  {base_url}/events/{ORG_SLUG}/series/{series.slug}")
        out.write(f"  organiser    {base_url}/manage/series/{series.pk}")
        out.write(f"\nAPI for developers: {base_url}/api/docs")


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
        defaults={
            "name": ORG_NAME,
            "owner": owner,
            "description": "Demo data of `make run`.",
            "contact_email": OWNER.email,
            "payment_instructions": (
                "Transfer the amount to IBAN DE00 0000 0000 0000 0000 00 (Encore Demo) "
                "and quote the payment reference."
            ),
        },
    )
    OrganizationStaff.objects.get_or_create(organization=org, user=staff)
    return org


def demo_start(days_ahead: int) -> datetime:
    """18:00 UTC `days_ahead` days from today: the same value for every run on one day."""
    day = timezone.now() + timedelta(days=days_ahead)
    return day.replace(hour=18, minute=0, second=0, microsecond=0)


def ensure_waitlist_events(org: Organization, venue: Venue, attendees: list[User]) -> list[Event]:
    """The three full events, each staged once, when created (later runs move the dates).

    Full House: Ben and Dan seated, Ada, Cleo, Eve queued; then Dan answers no and the
    waitlist offers his seat to Ada, the queue's head, for OFFER_WINDOW. Lottery Night:
    Ben and Cleo seated, Dan and Eve in the draw. Last Call: Ben seated, Eve queued until
    the cutoff.
    """
    ada, ben, cleo, dan, eve = attendees
    full, created = ensure_event(org, venue, FULL_EVENT)
    if created:
        demo_features.seat_and_queue(full, [ben, dan], [ada, cleo, eve])
        demo_features.free_a_seat_for_the_queue(full, dan)
    else:
        demo_features.renew_lapsed_offer(full, ada)
    lottery, created = ensure_event(org, venue, LOTTERY_EVENT)
    if created:
        demo_features.seat_and_queue(lottery, [ben, cleo], [dan, eve])
    cutoff, created = ensure_event(org, venue, CUTOFF_EVENT)
    if created:
        demo_features.seat_and_queue(cutoff, [ben], [eve])
    return [full, lottery, cutoff]


def ensure_event(org: Organization, venue: Venue, spec: DemoEvent) -> tuple[Event, bool]:
    """Create the event open, or move an existing one's schedule back into the coming days."""
    start = demo_start(spec.days_ahead)
    end = start + timedelta(hours=3)
    schedule: dict[str, Any] = {
        "start": start,
        "end": end,
        "check_in_starts_at": start - timedelta(hours=1),
        "check_in_ends_at": end,
    }
    if spec.cutoff_before_start is not None:
        schedule["waitlist_cutoff_date"] = start - spec.cutoff_before_start
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
            "waitlist_time_window": OFFER_WINDOW if spec.waitlist_open else None,
            "waitlist_lottery_mode": spec.lottery,
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
