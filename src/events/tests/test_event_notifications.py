"""The six platform notifications reach exactly the right people, after the commit.

Observed through what the notifications app stores (`Notification` rows) and sends
(the locmem e-mail outbox; Celery runs eagerly in tests). Every action runs inside
`django_capture_on_commit_callbacks(execute=True)` (fixture `committed`), which plays
the role of the commit; the class at the end uses real transactions.
"""

import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.db import transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from accounts.tests.factories import make_user
from common.tests.dispatch_recorder import SentTasks
from events.errors import EligibilityRefused
from events.models import (
    Event,
    EventRSVP,
    EventSeries,
    EventSeriesFollow,
    Organization,
    OrganizationFollow,
    Ticket,
    Venue,
)
from events.service import (
    admin_rsvp_service,
    cancellation_service,
    event_notifications,
    event_service,
    ticket_admin_service,
)
from events.service.batch_ticket_service import BatchTicketService, CartItem
from events.service.event_manager.manager import EventManager
from events.tests.attendance_builders import blacklist, invite
from events.tests.factories import make_event, make_member, make_org, make_staff, make_tier
from events.tests.ticket_helpers import free_tier, offline_tier, ticketed_event
from events.ticket_errors import AlreadyCancelled, TierSoldOut
from notifications.models import Notification

pytestmark = pytest.mark.django_db

VIENNA_START = datetime(2031, 3, 4, 18, 0, tzinfo=UTC)  # 19:00 CET in Vienna
VIENNA_START_FORMATTED = "Tue 4 Mar 2031, 19:00 CET"

Committed = Callable[[], AbstractContextManager[Any]]


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Committed:
    """`with committed(): ...` runs the on-commit hooks registered inside, as a commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def recipients(notification_type: str) -> Counter[uuid.UUID]:
    """user id → how many notifications of this type they got."""
    return Counter(
        Notification.objects.filter(notification_type=notification_type).values_list(
            "user_id", flat=True
        )
    )


def exactly_once(*users: User) -> Counter[uuid.UUID]:
    return Counter(user.pk for user in users)


def context_of(notification_type: str, user: User) -> dict[str, Any]:
    notification = Notification.objects.get(notification_type=notification_type, user=user)
    return notification.context


def follow(organization: Organization, user: User | None = None, **fields: Any) -> User:
    user = user or make_user()
    OrganizationFollow.objects.create(organization=organization, user=user, **fields)
    return user


def follow_series(series: EventSeries, user: User | None = None, **fields: Any) -> User:
    user = user or make_user()
    EventSeriesFollow.objects.create(event_series=series, user=user, **fields)
    return user


def holder(event: Event, status: str = Ticket.Status.ACTIVE, user: User | None = None) -> User:
    """A ticket row written directly (the checkout is not under test here)."""
    user = user or make_user()
    tier = event.ticket_tiers.first() or free_tier(event)
    Ticket.objects.create(event=event, tier=tier, user=user, status=status)
    return user


def rsvp(event: Event, status: str, user: User | None = None) -> User:
    user = user or make_user()
    EventRSVP.objects.create(event=event, user=user, status=status)
    return user


def vienna_org(**fields: Any) -> Organization:
    fields.setdefault("timezone", "Europe/Vienna")
    return make_org(name=f"Wiener Verein {uuid.uuid4().hex[:6]}", **fields)


def publish(event: Event, committed: Committed) -> None:
    with committed():
        event_service.change_status(event, Event.Status.OPEN)


# -- event_open ----------------------------------------------------------------------------
class TestEventOpenAudience:
    def test_public_event_reaches_live_members_and_followers_once_each(
        self, committed: Committed
    ) -> None:
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Jam", slug="jam")
        event = make_event(org, status="draft", event_series=series)
        active = make_member(org)
        paused = make_member(org, status="paused")
        org_follower = follow(org)
        series_follower = follow_series(series)
        member_and_follower = follow_series(series, follow(org, make_member(org)))
        # not these:
        make_member(org, status="cancelled")
        make_member(org, status="banned")
        follow(org, is_archived=True)
        follow(org, notify_new_events=False)
        follow_series(series, is_archived=True)
        follow_series(series, notify_new_events=False)
        follow(make_org())  # follows another organisation
        follow(org, make_user(is_active=False))  # a deactivated account
        make_user()  # a stranger

        publish(event, committed)

        assert recipients("event_open") == exactly_once(
            active, paused, org_follower, series_follower, member_and_follower
        )

    def test_blacklisted_people_hear_nothing_by_account_or_by_email(
        self, committed: Committed
    ) -> None:
        org = make_org()
        event = make_event(org, status="draft")
        welcome = follow(org)
        listed_by_account = follow(org, make_member(org))
        follow(org, make_user(email="Mixed.Case@Example.com"))  # listed by e-mail, any case
        blacklist(org, user=listed_by_account)
        blacklist(org, email="mixed.case@example.com")

        publish(event, committed)

        assert recipients("event_open") == exactly_once(welcome)

    def test_unlisted_event_reaches_members_and_followers(self, committed: Committed) -> None:
        org = make_org()
        event = make_event(org, status="draft", visibility="unlisted")
        member, follower = make_member(org), follow(org)

        publish(event, committed)

        assert recipients("event_open") == exactly_once(member, follower)

    def test_members_only_event_reaches_members_not_followers(self, committed: Committed) -> None:
        org = make_org()
        event = make_event(org, status="draft", visibility="members_only")
        member = make_member(org)
        following_member = follow(org, make_member(org, status="paused"))
        follow(org)  # a follower who is not a member
        follow(org, make_member(org, status="cancelled"))

        publish(event, committed)

        assert recipients("event_open") == exactly_once(member, following_member)

    def test_private_event_reaches_invited_people_only(self, committed: Committed) -> None:
        org = make_org()
        event = make_event(org, status="draft", visibility="private")
        invited_stranger, invited_member = make_user(), make_member(org)
        invite(event, invited_stranger)
        invite(event, invited_member)
        make_member(org)
        follow(org)
        listed = make_user()
        invite(event, listed)
        blacklist(org, user=listed)

        publish(event, committed)

        assert recipients("event_open") == exactly_once(invited_stranger, invited_member)

    def test_staff_only_event_reaches_nobody_beyond_staff(self, committed: Committed) -> None:
        org = make_org()
        event = make_event(org, status="draft", visibility="staff_only")
        following_staff = follow(org, make_staff(org))
        following_owner = follow(org, org.owner)
        make_staff(org)  # staff who neither follow nor are members: not an audience
        make_member(org)
        follow(org)

        publish(event, committed)

        assert recipients("event_open") == exactly_once(following_staff, following_owner)

    def test_a_private_organisation_tells_followers_only_if_they_are_members(
        self, committed: Committed
    ) -> None:
        org = make_org(visibility="private")
        event = make_event(org, status="draft")
        member = follow(org, make_member(org))
        follow(org)  # can no longer see the organisation's events

        publish(event, committed)

        assert recipients("event_open") == exactly_once(member)

    def test_a_series_template_is_never_announced(self) -> None:
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Jam", slug="jam")
        template = make_event(org, status="draft", event_series=series, is_template=True)
        make_member(org)
        follow_series(series)

        assert event_notifications.event_open_audience(template) == []
        assert event_notifications.send_event_opened(template.pk) == 0
        assert not Notification.objects.exists()

    @pytest.mark.parametrize("followers", [5, 25])
    def test_audience_is_one_query_whatever_its_size(
        self, django_assert_num_queries: Any, followers: int
    ) -> None:
        org = make_org()
        series = EventSeries.objects.create(organization=org, name="Jam", slug="jam")
        event = make_event(org, event_series=series)
        for index in range(followers):
            if index % 2:
                follow_series(series, follow(org))  # follows both
            else:
                follow(org, make_member(org))  # member and follower
        blacklist(org, user=follow(org))
        loaded = Event.objects.select_related("organization").get(pk=event.pk)

        with django_assert_num_queries(1):
            audience = event_notifications.event_open_audience(loaded)

        assert len(audience) == followers

    @pytest.mark.parametrize("followers", [5, 25])
    def test_work_before_the_first_send_is_fixed(
        self, followers: int, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Event and audience are loaded in two queries; only the sends grow with the audience."""
        from django.db import connection

        org = make_org()
        event = make_event(org)
        for _ in range(followers):
            follow(org)
        sent: list[User] = []
        monkeypatch.setattr(
            event_notifications.notification_requested,
            "send",
            lambda sender, *, user, **kwargs: sent.append(user),
        )

        with CaptureQueriesContext(connection) as queries:
            event_notifications.send_event_opened(event.pk)

        data_queries = [q for q in queries.captured_queries if "SAVEPOINT" not in q["sql"].upper()]
        assert len(data_queries) == 2
        assert len(sent) == followers


class TestEventOpenTriggers:
    def test_creating_an_open_event_announces_it(self, committed: Committed) -> None:
        org = make_org()
        follower = follow(org)

        with committed():
            event = event_service.create_event(
                org, {"name": "Opening night", "start": VIENNA_START, "status": "open"}
            )

        assert recipients("event_open") == exactly_once(follower)
        assert context_of("event_open", follower)["event_id"] == str(event.pk)

    def test_creating_a_draft_announces_nothing(self, committed: Committed) -> None:
        org = make_org()
        follow(org)

        with committed():
            event_service.create_event(org, {"name": "Later", "start": VIENNA_START})

        assert recipients("event_open") == Counter()

    def test_publishing_over_http_announces_after_the_commit(
        self, api: Any, committed: Committed
    ) -> None:
        org = make_org()
        event = make_event(org, status="draft")
        follower = follow(org)

        with committed():
            response = api(org.owner).post(f"/event-admin/{event.pk}/status/open")

        assert response.status_code == 200
        assert recipients("event_open") == exactly_once(follower)
        assert [message.to for message in mail.outbox] == [[follower.email]]

    def test_the_fan_out_is_a_task_not_part_of_the_request(
        self, api: Any, committed: Committed, sent_tasks: SentTasks
    ) -> None:
        """However large the audience, the request only enqueues one task for it."""
        org = make_org()
        event = make_event(org, status="draft")
        follow(org)

        with committed():
            response = api(org.owner).post(f"/event-admin/{event.pk}/status/open")

        assert response.status_code == 200
        assert sent_tasks.named("events.send_event_notification") == [
            ["event_open", str(event.pk), None]
        ]
        assert recipients("event_open") == Counter()  # the worker tells them

    def test_with_the_broker_down_the_fan_out_waits_in_the_outbox_then_runs_once(
        self, api: Any, committed: Committed, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from common import outbox
        from events import tasks

        def refuse(*args: Any, **kwargs: Any) -> None:
            raise ConnectionError("Connection refused")

        org = make_org()
        event = make_event(org, status="draft")
        follower = follow(org)
        with monkeypatch.context() as broker_down:
            broker_down.setattr(tasks.send_event_notification_task, "apply_async", refuse)
            with committed():
                response = api(org.owner).post(f"/event-admin/{event.pk}/status/open")

        assert response.status_code == 200
        assert recipients("event_open") == Counter()  # late, not lost:
        assert outbox.flush().published == 1
        assert recipients("event_open") == exactly_once(follower)

    @pytest.mark.parametrize("new_status", ["closed", "cancelled", "draft"])
    def test_other_status_changes_announce_nothing(
        self, committed: Committed, new_status: str
    ) -> None:
        org = make_org()
        event = make_event(org, status="open")
        follow(org)

        with committed():
            event_service.change_status(event, new_status)

        assert recipients("event_open") == Counter()

    def test_context_carries_the_event_keys_in_the_events_timezone(
        self, committed: Committed, settings: Any
    ) -> None:
        settings.FRONTEND_BASE_URL = "https://encore.test/"
        org = make_org(timezone="UTC")
        event = make_event(org, status="draft", start=VIENNA_START, timezone="Europe/Vienna")
        follower = follow(org)

        publish(event, committed)

        assert context_of("event_open", follower) == {
            "event_id": str(event.pk),
            "event_name": event.name,
            "event_url": f"https://encore.test/events/{event.pk}",
            "event_start": VIENNA_START.isoformat(),
            "event_start_formatted": VIENNA_START_FORMATTED,
            "organization_id": str(org.pk),
            "organization_name": org.name,
        }


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


# -- ticket_created ------------------------------------------------------------------------
class TestTicketCreated:
    def test_a_checkout_tells_the_buyer_once_listing_the_cart(self, committed: Committed) -> None:
        event = ticketed_event(organization=vienna_org(), start=VIENNA_START)
        standing, seated = free_tier(event, name="Standing"), free_tier(event, name="Seated")
        buyer = make_user()

        with committed():
            tickets = BatchTicketService(event, buyer).create_batch(
                [CartItem(seated.pk, 1), CartItem(standing.pk, 2)]
            )

        assert recipients("ticket_created") == exactly_once(buyer)
        context = context_of("ticket_created", buyer)
        assert context["ticket_id"] == str(tickets[0].pk)
        assert context["tier_name"] == "Seated"
        assert context["ticket_status"] == "active"
        assert context["ticket_count"] == 3
        assert [t["ticket_id"] for t in context["tickets"]] == [str(t.pk) for t in tickets]
        assert [t["tier_name"] for t in context["tickets"]] == ["Seated", "Standing", "Standing"]
        assert context["event_start_formatted"] == VIENNA_START_FORMATTED
        assert [message.to for message in mail.outbox] == [[buyer.email]]

    def test_an_offline_ticket_says_it_waits_for_payment(self, committed: Committed) -> None:
        event = ticketed_event()
        buyer = make_user()

        with committed():
            BatchTicketService(event, buyer).create_batch([CartItem(offline_tier(event).pk, 1)])

        assert context_of("ticket_created", buyer)["ticket_status"] == "pending"

    def test_a_box_office_sale_tells_the_buyer_not_the_staff(self, committed: Committed) -> None:
        event = ticketed_event()
        tier = make_tier(event, name="Door", payment_method="at_the_door")
        staff, buyer = make_staff(event.organization), make_user()

        with committed():
            ticket = ticket_admin_service.sell_at_box_office(event, staff, buyer.pk, tier.pk)

        assert recipients("ticket_created") == exactly_once(buyer)
        assert context_of("ticket_created", buyer)["ticket_id"] == str(ticket.pk)

    def test_a_refused_checkout_tells_nobody(self, committed: Committed) -> None:
        event = ticketed_event()
        tier = free_tier(event, total_quantity=1)

        with committed(), pytest.raises(TierSoldOut):
            BatchTicketService(event, make_user()).create_batch([CartItem(tier.pk, 2)])

        assert recipients("ticket_created") == Counter()


# -- ticket_cancelled ----------------------------------------------------------------------
def bought(event: Event, tier: Any, buyer: User, count: int = 1) -> list[Ticket]:
    """Tickets from a real checkout; its own ticket_created stays uncommitted (not run)."""
    return BatchTicketService(event, buyer).create_batch([CartItem(tier.pk, count)])


CANCELLATIONS: dict[str, Callable[[Event, Ticket], Any]] = {
    "by the holder": lambda event, ticket: cancellation_service.cancel_ticket_by_user(
        ticket.user, ticket.pk
    ),
    "by staff": lambda event, ticket: cancellation_service.cancel_ticket_by_staff(event, ticket.pk),
    "refunded offline": lambda event, ticket: cancellation_service.refund_ticket_offline(
        event, ticket.pk
    ),
}


class TestTicketCancelled:
    @pytest.mark.parametrize("cancel", CANCELLATIONS.values(), ids=CANCELLATIONS.keys())
    def test_every_cancellation_path_tells_the_ticket_holder(
        self, committed: Committed, cancel: Callable[[Event, Ticket], Any]
    ) -> None:
        event = ticketed_event(organization=vienna_org(), start=VIENNA_START)
        tier = free_tier(event, name="Standing")
        owner, bystander = make_user(), make_user()
        [ticket] = bought(event, tier, owner)
        bought(event, tier, bystander)

        with committed():
            cancel(event, ticket)

        assert recipients("ticket_cancelled") == exactly_once(owner)
        context = context_of("ticket_cancelled", owner)
        assert (context["ticket_id"], context["tier_name"]) == (str(ticket.pk), "Standing")
        assert context["event_start_formatted"] == VIENNA_START_FORMATTED

    def test_the_unpaid_sweep_tells_each_holder_once(self, committed: Committed) -> None:
        start = datetime(2031, 3, 1, 12, 0, tzinfo=UTC)
        event = ticketed_event(start=start + timedelta(days=30))
        tier = offline_tier(event, payment_due_hours=72)
        late_payer, other_late_payer, paid_up = make_user(), make_user(), make_user()
        with time_machine.travel(start, tick=False):
            two = bought(event, tier, late_payer, 2)
            [other] = bought(event, tier, other_late_payer)
        with time_machine.travel(start + timedelta(hours=72), tick=False):
            bought(event, tier, paid_up)  # still within its 72 hours at the sweep

        with committed(), time_machine.travel(start + timedelta(hours=73), tick=False):
            result = ticket_admin_service.expire_unpaid_tickets()

        assert result.cancelled_tickets == 3
        assert recipients("ticket_cancelled") == exactly_once(late_payer, other_late_payer)
        context = context_of("ticket_cancelled", late_payer)
        assert sorted(t["ticket_id"] for t in context["tickets"]) == sorted(str(t.pk) for t in two)
        assert context_of("ticket_cancelled", other_late_payer)["ticket_id"] == str(other.pk)

    def test_a_refused_cancellation_tells_nobody(self, committed: Committed) -> None:
        event = ticketed_event()
        [ticket] = bought(event, free_tier(event), make_user())
        cancellation_service.cancel_ticket_by_staff(event, ticket.pk)

        with committed(), pytest.raises(AlreadyCancelled):
            cancellation_service.cancel_ticket_by_staff(event, ticket.pk)

        assert recipients("ticket_cancelled") == Counter()


# -- rsvp_confirmation ---------------------------------------------------------------------
class TestRsvpConfirmation:
    @pytest.mark.parametrize("answer", ["yes", "no", "maybe"])
    def test_every_answer_is_confirmed_with_its_status(
        self, committed: Committed, answer: str
    ) -> None:
        event = make_event(vienna_org(), start=VIENNA_START)
        person = make_user()

        with committed():
            EventManager(person, event).rsvp(answer)

        assert recipients("rsvp_confirmation") == exactly_once(person)
        context = context_of("rsvp_confirmation", person)
        assert context["status"] == answer
        assert context["event_start_formatted"] == VIENNA_START_FORMATTED

    def test_changing_the_answer_confirms_each_answer(self, committed: Committed) -> None:
        event = make_event()
        person = make_user()

        with committed():
            EventManager(person, event).rsvp("yes")
        with committed():
            EventManager(person, event).rsvp("no")

        statuses = list(
            Notification.objects.filter(notification_type="rsvp_confirmation")
            .order_by("created_at")
            .values_list("context__status", flat=True)
        )
        assert statuses == ["yes", "no"]

    def test_staff_answering_for_someone_confirms_to_that_person(
        self, committed: Committed
    ) -> None:
        event = make_event()
        person = make_user()

        with committed():
            admin_rsvp_service.set_rsvp(event, person, "yes")

        assert recipients("rsvp_confirmation") == exactly_once(person)

    def test_over_http(self, api: Any, committed: Committed) -> None:
        event = make_event()
        person = make_user()

        with committed():
            response = api(person).post(f"/events/{event.pk}/rsvp/maybe")

        assert response.status_code in (200, 201), response.content
        assert context_of("rsvp_confirmation", person)["status"] == "maybe"

    def test_a_refused_answer_confirms_nothing(self, committed: Committed) -> None:
        event = make_event(max_attendees=1)
        rsvp(event, "yes")
        Event.objects.filter(pk=event.pk).update(attendee_count=1)
        event.refresh_from_db()

        with committed(), pytest.raises(EligibilityRefused):
            EventManager(make_user(), event).rsvp("yes")

        assert recipients("rsvp_confirmation") == Counter()


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
        assert "event notification failed" in caplog.text
