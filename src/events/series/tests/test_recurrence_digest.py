"""The SERIES_EVENTS_GENERATED digest: one per batch, the right audience, never fatal.

Observed through the `Notification` rows the notifications app stores and the locmem
outbox; on-commit hooks run through `django_capture_on_commit_callbacks(execute=True)`.
"""

import uuid
from collections import Counter
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.db import transaction

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_member, make_org, make_staff
from events.models import (
    Blacklist,
    Event,
    EventSeries,
    EventSeriesFollow,
    Organization,
    OrganizationFollow,
    OrganizationMember,
)
from events.series import services as recurrence_service
from events.series.services import series_notifications
from events.series.tests.recurrence_builders import generate, make_series, occurrences, utc
from notifications.models import Notification, NotificationPreference, NotificationType
from notifications.types import OCCURRENCE_KEYS, SERIES_DIGEST_KEYS

pytestmark = pytest.mark.django_db

DIGEST = NotificationType.SERIES_EVENTS_GENERATED


@pytest.fixture(autouse=True)
def _now():
    with time_machine.travel(utc(2026, 1, 1, 12), tick=False) as traveller:
        yield traveller


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


def digests() -> Counter[uuid.UUID]:
    return Counter(
        Notification.objects.filter(notification_type=DIGEST).values_list("user_id", flat=True)
    )


def once(*users: User) -> Counter[uuid.UUID]:
    return Counter(user.pk for user in users)


class People:
    """Everyone who could hear of a series of `org`."""

    def __init__(self, org: Organization, series: EventSeries) -> None:
        self.owner = org.owner
        self.staff = make_staff(org)
        self.member = make_member(org)
        self.paused_member = make_member(org, status=OrganizationMember.Status.PAUSED)
        self.org_follower = make_user()
        OrganizationFollow.objects.create(user=self.org_follower, organization=org)
        self.series_follower = make_user()
        EventSeriesFollow.objects.create(user=self.series_follower, event_series=series)
        # never
        make_member(org, status=OrganizationMember.Status.CANCELLED)
        quiet = make_user()
        OrganizationFollow.objects.create(user=quiet, organization=org, notify_new_events=False)
        gone = make_user()
        EventSeriesFollow.objects.create(user=gone, event_series=series, is_archived=True)
        banned = make_member(org)
        Blacklist.objects.create(organization=org, email=banned.email.upper())
        make_member(org, user=make_user(is_active=False))
        make_user()  # a stranger

    @property
    def staff_side(self) -> Counter[uuid.UUID]:
        return once(self.owner, self.staff)

    @property
    def members(self) -> Counter[uuid.UUID]:
        return once(self.member, self.paused_member)

    @property
    def followers(self) -> Counter[uuid.UUID]:
        return once(self.org_follower, self.series_follower)


def series_with_people(visibility: str = Event.Visibility.PUBLIC, **fields):
    org = fields.pop("org", None) or make_org()
    series = make_series(org, template={"visibility": visibility}, **fields)
    return series, People(org, series)


# -- one per batch -----------------------------------------------------------------------------
def test_one_digest_per_person_lists_every_new_occurrence(committed):
    series, people = series_with_people(auto_publish=True)
    with committed():
        generate(series)
    assert digests() == people.staff_side + people.members + people.followers
    context = Notification.objects.filter(notification_type=DIGEST)[0].context
    assert set(context) >= SERIES_DIGEST_KEYS
    assert context["events_count"] == 8 == len(context["occurrences"])
    assert all(set(item) >= OCCURRENCE_KEYS for item in context["occurrences"])
    first = context["occurrences"][0]
    assert first["start"] == "2026-01-05T09:00:00+00:00"
    assert first["start_formatted"] == "Mon 5 Jan 2026, 10:00 CET"
    assert first["event_id"] == str(occurrences(series)[0].pk)
    assert context["series_url"].endswith(
        f"/events/{series.organization.slug}/series/{series.slug}"
    )


def test_an_empty_pass_sends_nothing_and_a_new_batch_sends_one_more(committed, _now):
    series, _people = series_with_people(auto_publish=True)
    with committed():
        generate(series)
        generate(series)
    assert set(digests().values()) == {1}
    _now.shift(timedelta(weeks=1))
    with committed():
        generate(series)
    assert set(digests().values()) == {2}
    latest = Notification.objects.filter(notification_type=DIGEST).order_by("-created_at")[0]
    assert latest.context["events_count"] == 1


def test_occurrences_never_announce_themselves_one_by_one(committed):
    series, _people = series_with_people(auto_publish=True)
    with committed():
        generate(series)
    assert not Notification.objects.filter(notification_type=NotificationType.EVENT_OPEN).exists()


# -- audience ------------------------------------------------------------------------------------
def test_a_draft_batch_goes_to_the_owner_and_staff_only(committed):
    series, people = series_with_people(Event.Visibility.PUBLIC, auto_publish=False)
    with committed():
        generate(series)
    assert digests() == people.staff_side


@pytest.mark.parametrize(
    "visibility",
    [Event.Visibility.STAFF_ONLY, Event.Visibility.PRIVATE, Event.Visibility.UNLISTED],
)
def test_non_public_templates_reach_owner_and_staff_only(committed, visibility):
    series, people = series_with_people(visibility, auto_publish=True)
    with committed():
        generate(series)
    assert digests() == people.staff_side


def test_members_only_templates_add_live_members_not_followers(committed):
    series, people = series_with_people(Event.Visibility.MEMBERS_ONLY, auto_publish=True)
    with committed():
        generate(series)
    assert digests() == people.staff_side + people.members


def test_a_private_organisation_keeps_followers_who_are_not_members_out(committed):
    org = make_org(visibility=Organization.Visibility.PRIVATE)
    series, people = series_with_people(auto_publish=True, org=org)
    with committed():
        generate(series)
    assert digests() == people.staff_side + people.members


def test_preferences_decide_delivery(committed, settings):
    series, people = series_with_people(auto_publish=True)
    NotificationPreference.objects.create(user=people.member, silence_all=True)
    NotificationPreference.objects.create(
        user=people.org_follower, type_settings={DIGEST.value: {"enabled": False}}
    )
    with committed():
        generate(series)
    mailed = {address for message in mail.outbox for address in message.to}
    assert people.series_follower.email in mailed
    assert people.member.email not in mailed
    assert people.org_follower.email not in mailed


# -- never fatal ---------------------------------------------------------------------------------
def test_a_failing_digest_keeps_the_generated_events(committed, monkeypatch, caplog):
    series, _people = series_with_people(auto_publish=True)

    def broken(*args, **kwargs):
        raise RuntimeError("mail server on fire")

    monkeypatch.setattr(series_notifications, "send_series_events_generated", broken)
    with committed():
        created = generate(series)
    assert len(created) == 8 == len(occurrences(series))
    assert not digests()
    assert "series digest failed" in caplog.text


def test_a_rolled_back_pass_sends_nothing(committed):
    series, _people = series_with_people(auto_publish=True)
    with committed(), pytest.raises(RuntimeError), transaction.atomic():
        recurrence_service.generate_series_events(EventSeries.objects.get(pk=series.pk))
        raise RuntimeError("the caller failed afterwards")
    assert not digests()
    assert occurrences(series) == []
