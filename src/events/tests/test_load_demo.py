from datetime import datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Count, Q
from django.utils import timezone

from accounts.models import User
from events.models import (
    Event,
    EventRSVP,
    EventSeries,
    EventWaitList,
    Organization,
    OrganizationStaff,
    RecurrenceRule,
    Ticket,
    TicketTier,
    WaitlistOffer,
)

DEMO_MODELS = (
    User,
    Organization,
    OrganizationStaff,
    Event,
    TicketTier,
    EventRSVP,
    Ticket,
    EventWaitList,
    WaitlistOffer,
    EventSeries,
    RecurrenceRule,
)
PENDING = WaitlistOffer.WaitlistOfferStatus.PENDING


def load_demo() -> str:
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


DEMO_EVENT_SLUGS = ("rsvp-meetup", "ticketed-workshop", "full-house", "lottery-night", "last-call")


def feature_state() -> dict[str, object]:
    """What the flagship features show: offers, queues, seats, series dates, edits."""
    return {
        "offers": sorted(
            WaitlistOffer.objects.values_list("event__slug", "user__email", "status", "expires_at")
        ),
        "queues": sorted(EventWaitList.objects.values_list("event__slug", "user__email")),
        "rsvps": sorted(EventRSVP.objects.values_list("event__slug", "user__email", "status")),
        "events": sorted(
            Event.objects.values_list("slug", "status", "start", "attendee_count", "is_modified")
        ),
        "exdates": sorted(EventSeries.objects.values_list("name", "exdates")),
    }


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
        assert first["User"] == 7
        # 5 events, the series' template and its 4 weekly dates.
        assert first["Event"] == 10
        assert first["WaitlistOffer"] == 1
        for stored, real in seats_by_event().values():
            assert stored == real

    def test_second_run_changes_no_waitlist_series_or_offer_state(self) -> None:
        load_demo()
        first = feature_state()
        output = load_demo()

        assert feature_state() == first
        assert "holds a live offer on Full House" in output

    def test_demo_events_are_open_upcoming_and_have_the_promised_shapes(self) -> None:
        load_demo()

        events = {e.slug: e for e in Event.objects.all()}
        plain = {slug: events[slug] for slug in DEMO_EVENT_SLUGS}
        assert {e.status for e in plain.values()} == {Event.Status.OPEN}
        assert events["rsvp-meetup"].max_attendees == 3
        assert events["ticketed-workshop"].max_attendees == 8
        tiers = {t.name: t for t in events["ticketed-workshop"].ticket_tiers.all()}
        assert tiers["Free"].payment_method == TicketTier.PaymentMethod.FREE
        assert tiers["Free"].total_quantity == 5
        assert tiers["Supporter"].payment_method == TicketTier.PaymentMethod.OFFLINE
        assert tiers["Supporter"].price > 0
        full = events["full-house"]
        assert full.waitlist_open is True
        assert full.attendee_count == 1 and full.max_attendees == 2

    def test_the_tickets_page_has_a_free_an_unpaid_and_a_paid_ticket_to_show(self) -> None:
        load_demo()

        workshop = Event.objects.get(slug="ticketed-workshop")
        sold = {
            (t.user.email, t.tier.name, t.status)
            for t in workshop.tickets.select_related("user", "tier")
        }
        assert sold == {
            ("cleo@encore.test", "Free", Ticket.Status.ACTIVE),
            ("ben@encore.test", "Supporter", Ticket.Status.PENDING),
            ("ada@encore.test", "Supporter", Ticket.Status.ACTIVE),
        }
        assert workshop.attendee_count == 3
        assert "quote the payment reference" in workshop.organization.payment_instructions

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
        rsvp = EventRSVP.objects.get(event__slug="full-house", user__email="ben@encore.test")
        rsvp.status = EventRSVP.Status.NO
        rsvp.save(update_fields=["status"])
        Event.objects.filter(slug="full-house").update(attendee_count=1)

        load_demo()

        rsvp.refresh_from_db()
        assert rsvp.status == EventRSVP.Status.NO
        assert seats_by_event()["full-house"] == (1, 0)


@pytest.mark.django_db
class TestDemoFlagshipFeatures:
    def test_full_house_is_full_with_a_queue_and_ada_holds_a_live_offer(self) -> None:
        load_demo()

        full = Event.objects.get(slug="full-house")
        assert full.active_waitlist and full.waitlist_time_window is not None
        offer = WaitlistOffer.objects.get(event=full)
        assert offer.user.email == "ada@encore.test"
        assert offer.status == PENDING
        assert offer.expires_at > timezone.now()
        assert offer.expires_at <= full.start
        held = WaitlistOffer.objects.filter(event=full, status=PENDING).count()
        assert full.attendee_count + held == full.max_attendees
        queued = set(EventWaitList.objects.filter(event=full).values_list("user__email", flat=True))
        assert {"cleo@encore.test", "eve@encore.test"} <= queued

    def test_lottery_and_cutoff_events_are_full_with_their_settings(self) -> None:
        load_demo()

        lottery = Event.objects.get(slug="lottery-night")
        assert lottery.waitlist_lottery_mode is True and lottery.active_waitlist
        assert lottery.attendee_count == lottery.max_attendees
        assert EventWaitList.objects.filter(event=lottery).count() == 2
        cutoff = Event.objects.get(slug="last-call")
        assert cutoff.active_waitlist and cutoff.waitlist_cutoff_date is not None
        assert timezone.now() < cutoff.waitlist_cutoff_date < cutoff.start
        assert cutoff.attendee_count == cutoff.max_attendees
        assert EventWaitList.objects.filter(event=cutoff).exists()

    def test_weekly_series_has_a_cancelled_date_and_a_modified_occurrence(self) -> None:
        load_demo()

        series = EventSeries.objects.get(name="Weekly Jam")
        assert series.recurrence_rule is not None
        assert series.recurrence_rule.frequency == RecurrenceRule.Frequency.WEEKLY
        dates = list(Event.objects.filter(event_series=series, is_template=False).order_by("start"))
        assert len(dates) == 4
        cancelled = [e for e in dates if e.status == Event.Status.CANCELLED]
        assert len(cancelled) == 1
        assert len(series.exdates) == 1
        assert cancelled[0].start == datetime.fromisoformat(series.exdates[0])
        modified = [e for e in dates if e.is_modified]
        assert len(modified) == 1 and modified[0].status == Event.Status.OPEN

    def test_printed_accounts_say_what_each_is_for(self) -> None:
        output = load_demo()

        lines = {line.split()[0]: line for line in output.splitlines() if "@encore.test" in line}
        assert "encore-ada" in lines["ada@encore.test"]
        assert "holds a live offer on Full House" in lines["ada@encore.test"]
        assert "organiser" in lines["owner@encore.test"]
        assert "Django admin" in lines["owner@encore.test"]
        for what in ("manage events", "waitlists", "series"):
            assert what in lines["owner@encore.test"]
        for email in ("staff@", "ben@", "cleo@", "dan@", "eve@"):
            assert f"{email}encore.test" in lines
        assert "Weekly Jam" in output and "Lottery Night" in output and "Last Call" in output

    def test_printed_links_are_pages_not_api_routes(self) -> None:
        output = load_demo()

        assert "log in at http://127.0.0.1:8000/login" in output
        assert "/api/events/" not in output and "/api/event-series/" not in output
        assert "http://127.0.0.1:8000/manage/" in output
        assert "http://127.0.0.1:8000/events/encore-demo/series/" in output

    def test_a_later_run_renews_an_offer_that_lapsed_unclaimed(self) -> None:
        load_demo()
        WaitlistOffer.objects.update(expires_at=timezone.now() - timedelta(minutes=1))

        load_demo()

        live = WaitlistOffer.objects.filter(
            event__slug="full-house", status=PENDING, expires_at__gt=timezone.now()
        )
        assert [offer.user.email for offer in live] == ["ada@encore.test"]
