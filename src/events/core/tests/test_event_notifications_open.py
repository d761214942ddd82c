"""event_open reaches exactly the right people (the organisation's and the series' followers,
never twice), after the commit, and only on the transitions that open an event. Observed
through the stored `Notification` rows and the locmem outbox, every action inside the
`committed` fixture (event_notifications_support).
"""

from collections import Counter
from typing import Any

import pytest
from django.core import mail
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from accounts.tests.factories import make_user
from common.tests.dispatch_recorder import SentTasks
from events.core.services import event_notifications, event_service
from events.core.tests.attendance_builders import blacklist, invite
from events.core.tests.event_notifications_support import (
    VIENNA_START,
    VIENNA_START_FORMATTED,
    Committed,
    committed,
    context_of,
    exactly_once,
    follow,
    recipients,
)
from events.core.tests.factories import make_event, make_member, make_org, make_staff
from events.models import Event, EventSeries, EventSeriesFollow
from notifications.models import Notification

__all__ = ["committed"]  # fixtures, imported for pytest


pytestmark = pytest.mark.django_db


def follow_series(series: EventSeries, user: User | None = None, **fields: Any) -> User:
    user = user or make_user()
    EventSeriesFollow.objects.create(event_series=series, user=user, **fields)
    return user


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
        settings.ENCORE_PUBLIC_URL = "https://encore.test/"
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
            "event_timezone": "Europe/Vienna",
            "organization_id": str(org.pk),
            "organization_name": org.name,
        }
