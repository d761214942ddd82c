"""event_updated and event_cancelled reach exactly the people attending the event, after the
commit; and, with real transactions, a rolled-back change sends nothing. Observed through
the stored `Notification` rows and the locmem outbox, every action inside the `committed`
fixture (event_notifications_support), except the real transactions of the class at the
end.
"""

from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.db import transaction

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.services import event_notifications, event_service
from events.core.services.event_manager import EventManager
from events.core.tests.event_notifications_support import (
    VIENNA_START,
    VIENNA_START_FORMATTED,
    Committed,
    committed,
    context_of,
    exactly_once,
    follow,
    recipients,
    rsvp,
    vienna_org,
)
from events.core.tests.factories import make_event, make_member, make_org
from events.models import Event, EventRSVP, Ticket, Venue
from events.ticketing.services.batch_tickets import BatchTicketService, CartItem
from events.ticketing.tests.ticket_helpers import free_tier, ticketed_event
from notifications.models import Notification

__all__ = ["committed"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


def holder(event: Event, status: str = Ticket.Status.ACTIVE, user: User | None = None) -> User:
    """A ticket row written directly (the checkout is not under test here)."""
    user = user or make_user()
    tier = event.ticket_tiers.first() or free_tier(event)
    Ticket.objects.create(event=event, tier=tier, user=user, status=status)
    return user


# -- event_updated / event_cancelled -------------------------------------------------------
@pytest.fixture
def attended() -> Iterator[tuple[Event, list[User], list[User]]]:
    """A Vienna event with its attendees (who must hear) and others (who must not)."""
    org = vienna_org()
    event = ticketed_event(organization=org, start=VIENNA_START)
    tier = free_tier(event, name="Standing")
    two_tickets = holder(event)
    holder(event, user=two_tickets)
    attendees = [
        holder(event),
        holder(event, Ticket.Status.PENDING),
        holder(event, Ticket.Status.CHECKED_IN),
        two_tickets,
        rsvp(event, EventRSVP.Status.YES),
    ]
    others = [
        holder(event, Ticket.Status.CANCELLED),
        rsvp(event, EventRSVP.Status.NO),
        rsvp(event, EventRSVP.Status.MAYBE),
        make_member(org),
        follow(org),
    ]
    holder(event, user=make_user(is_active=False))
    assert tier.pk == event.ticket_tiers.get().pk
    yield event, attendees, others


class TestEventUpdated:
    def test_a_moved_start_reaches_ticket_holders_and_yes_rsvps_only(
        self, committed: Committed, attended: tuple[Event, list[User], list[User]]
    ) -> None:
        event, attendees, _others = attended

        with committed():
            event_service.update_event(event, {"start": VIENNA_START + timedelta(hours=2)})

        assert recipients("event_updated") == exactly_once(*attendees)
        context = context_of("event_updated", attendees[0])
        assert context["changed_fields"] == ["start", "end"]
        assert context["event_start_formatted"] == "Tue 4 Mar 2031, 21:00 CET"
        assert context["event_start"] == (VIENNA_START + timedelta(hours=2)).isoformat()
        assert context["event_end_formatted"] == "Wed 5 Mar 2031, 21:00 CET"

    def test_a_new_venue_names_it(
        self, committed: Committed, attended: tuple[Event, list[User], list[User]]
    ) -> None:
        event, attendees, _others = attended
        venue = Venue.objects.create(organization=event.organization, name="Porgy & Bess")

        with committed():
            event_service.update_event(event, {"venue_id": venue.pk})

        context = context_of("event_updated", attendees[-1])
        assert (context["changed_fields"], context["venue_name"]) == (["venue"], "Porgy & Bess")
        assert [m.to for m in mail.outbox if "Porgy & Bess" in m.body] != []

    def test_other_changes_notify_nobody(
        self, committed: Committed, attended: tuple[Event, list[User], list[User]]
    ) -> None:
        event, _attendees, _others = attended

        with committed():
            event_service.update_event(event, {"name": "Renamed", "max_attendees": 50})

        assert recipients("event_updated") == Counter()

    def test_a_patch_over_http_notifies_the_attendees(
        self, api: Any, committed: Committed, attended: tuple[Event, list[User], list[User]]
    ) -> None:
        event, attendees, _others = attended
        new_end = (event.end + timedelta(hours=1)).isoformat()

        with committed():
            response = api(event.organization.owner).patch(
                f"/event-admin/{event.pk}", {"end": new_end}
            )

        assert response.status_code == 200, response.content
        assert recipients("event_updated") == exactly_once(*attendees)
        assert context_of("event_updated", attendees[0])["changed_fields"] == ["end"]


class TestEventCancelled:
    def test_cancelling_reaches_ticket_holders_and_yes_rsvps_only(
        self, committed: Committed, attended: tuple[Event, list[User], list[User]]
    ) -> None:
        event, attendees, _others = attended

        with committed():
            event_service.change_status(event, Event.Status.CANCELLED)

        assert recipients("event_cancelled") == exactly_once(*attendees)
        context = context_of("event_cancelled", attendees[0])
        assert context["event_start_formatted"] == VIENNA_START_FORMATTED
        assert context["organization_name"] == event.organization.name
        assert recipients("event_open") == Counter()

    def test_a_send_for_an_event_no_longer_cancelled_tells_nobody(
        self, attended: tuple[Event, list[User], list[User]]
    ) -> None:
        event, _attendees, _others = attended

        assert event_notifications.send_event_cancelled(event.pk) == 0
        assert not Notification.objects.exists()


# -- commit and rollback, for real ---------------------------------------------------------
@pytest.mark.django_db(transaction=True)
class TestRealTransactions:
    """No test transaction around these: commit and rollback are the database's own."""

    def test_a_rolled_back_publish_sends_nothing(self) -> None:
        org = make_org()
        event = make_event(org, status="draft")
        follow(org)

        with pytest.raises(RuntimeError, match="later step failed"), transaction.atomic():
            event_service.change_status(event, Event.Status.OPEN)
            raise RuntimeError("later step failed")

        assert not Notification.objects.exists()
        assert mail.outbox == []

    def test_a_rolled_back_checkout_sends_nothing(self) -> None:
        event = ticketed_event()
        tier = free_tier(event)

        with pytest.raises(RuntimeError, match="later step failed"), transaction.atomic():
            BatchTicketService(event, make_user()).create_batch([CartItem(tier.pk, 1)])
            raise RuntimeError("later step failed")

        assert not Notification.objects.exists()
        assert mail.outbox == []

    def test_a_committed_cancel_notifies_once_it_committed(self) -> None:
        event = ticketed_event(status="open")
        attendee = holder(event)

        with transaction.atomic():
            event_service.change_status(event, Event.Status.CANCELLED)
            assert not Notification.objects.exists()  # nothing before the commit

        assert recipients("event_cancelled") == exactly_once(attendee)
        notification = Notification.objects.get(notification_type="event_cancelled")
        assert notification.in_app is True  # dispatched after the commit as well
        assert [message.to for message in mail.outbox] == [[attendee.email]]

    def test_a_failing_send_never_fails_the_committed_change(
        self, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        def broken(**kwargs: Any) -> None:
            raise RuntimeError("renderer bug")

        monkeypatch.setattr(event_notifications, "_send", lambda *a, **k: broken())
        event = make_event()
        person = make_user()

        EventManager(person, event).rsvp("yes")

        assert EventRSVP.objects.filter(event=event, user=person, status="yes").exists()
        # The confirmation is a task (`events.send_rsvp_confirmation`), run in the caller
        # by the eager test app: its failure is logged by the dispatch, not raised.
        assert "could not dispatch a task" in caplog.text
        assert "renderer bug" in caplog.text
