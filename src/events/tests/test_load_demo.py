from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Count, Q

from accounts.models import User
from events.models import Event, EventRSVP, Organization, OrganizationStaff, Ticket, TicketTier

DEMO_MODELS = (User, Organization, OrganizationStaff, Event, TicketTier, EventRSVP, Ticket)


def load_demo() -> str:
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in DEMO_MODELS}


def seats_by_event() -> dict[str, tuple[int, int]]:
    """slug → (stored attendee_count, seats really held by YES RSVPs and live tickets)."""
    events = Event.objects.annotate(
        yes=Count("rsvps", filter=Q(rsvps__status=EventRSVP.Status.YES), distinct=True),
        live_tickets=Count(
            "tickets", filter=~Q(tickets__status=Ticket.Status.CANCELLED), distinct=True
        ),
    )
    return {e.slug: (e.attendee_count, e.yes + e.live_tickets) for e in events}


@pytest.mark.django_db
class TestLoadDemo:
    def test_second_run_creates_nothing_and_keeps_attendee_counts_true(self) -> None:
        load_demo()
        first = row_counts()
        load_demo()

        assert row_counts() == first
        assert first["User"] == 5
        assert first["Event"] == 3
        assert first["EventRSVP"] == 2
        for stored, real in seats_by_event().values():
            assert stored == real

    def test_demo_has_three_open_upcoming_events_with_the_promised_shapes(self) -> None:
        load_demo()

        events = {e.slug: e for e in Event.objects.all()}
        assert {e.status for e in events.values()} == {Event.Status.OPEN}
        assert events["rsvp-meetup"].max_attendees == 3
        assert events["ticketed-workshop"].max_attendees == 8
        tiers = {t.name: t for t in events["ticketed-workshop"].ticket_tiers.all()}
        assert tiers["Free"].payment_method == TicketTier.PaymentMethod.FREE
        assert tiers["Free"].total_quantity == 5
        assert tiers["Supporter"].payment_method == TicketTier.PaymentMethod.OFFLINE
        assert tiers["Supporter"].price > 0
        full = events["full-house"]
        assert full.waitlist_open is True
        assert full.attendee_count == full.max_attendees == 2

    def test_printed_passwords_log_in(self) -> None:
        output = load_demo()

        for email, password in [
            ("owner@encore.test", "encore-owner"),
            ("cleo@encore.test", "encore-cleo"),
        ]:
            assert f"{email}  " in output
            assert password in output
            assert User.objects.get(email=email).check_password(password)

    def test_rerun_leaves_what_people_changed_alone(self) -> None:
        load_demo()
        rsvp = EventRSVP.objects.get(event__slug="full-house", user__email="ada@encore.test")
        rsvp.status = EventRSVP.Status.NO
        rsvp.save(update_fields=["status"])
        Event.objects.filter(slug="full-house").update(attendee_count=1)

        load_demo()

        rsvp.refresh_from_db()
        assert rsvp.status == EventRSVP.Status.NO
        assert seats_by_event()["full-house"] == (1, 1)
