"""`get_public_event` (the event page, `GET /events/{id}`) is a compiled statement (ADR
0032): it must answer what the ORM's `with_public_fields(visible_events(...))`
answers, for every kind of viewer, and keep refusing the events they may not see."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from accounts.tests.factories import make_user
from common.errors import NotFound
from events.core.selectors.access import visible_events
from events.core.selectors.event import get_public_event, seats_held, with_public_fields
from events.core.tests.factories import make_event, make_member, make_org, make_staff, make_tier
from events.models import Event, WaitlistOffer

pytestmark = pytest.mark.django_db


def _orm_answer(viewer, event_id):
    return with_public_fields(visible_events(viewer), viewer).filter(pk=event_id).first()


def test_every_viewer_gets_what_the_orm_gives_them():
    owner = make_user()
    organization = make_org(owner=owner)
    event = make_event(organization, max_attendees=10)
    make_tier(event, name="Standard")
    holder = make_user()
    WaitlistOffer.objects.create(
        event=event,
        user=holder,
        seats=3,
        batch_id=event.pk,
        expires_at=timezone.now() + timedelta(hours=1),
    )
    WaitlistOffer.objects.create(  # lapsed, not swept yet: holds nothing
        event=event,
        user=make_user(),
        seats=2,
        batch_id=event.pk,
        expires_at=timezone.now() - timedelta(minutes=1),
    )
    viewers = [owner, make_staff(organization), make_member(organization), make_user()]

    for viewer in [*viewers, AnonymousUser()]:
        found = get_public_event(viewer, event.pk)
        expected = _orm_answer(viewer, event.pk)
        assert expected is not None
        assert [getattr(found, f.attname) for f in Event._meta.concrete_fields] == [
            getattr(expected, f.attname) for f in Event._meta.concrete_fields
        ]
        assert found.viewer_is_staff == expected.viewer_is_staff  # type: ignore[attr-defined]
        assert seats_held(found) == seats_held(expected) == 3
        assert found.organization == organization and found.venue is None
        assert [tier.name for tier in found.ticket_tiers.all()] == ["Standard"]
    assert [get_public_event(v, event.pk).viewer_is_staff for v in viewers] == [  # type: ignore[attr-defined]
        True,
        True,
        False,
        False,
    ]


@pytest.mark.parametrize(
    "fields",
    [
        {"status": Event.Status.DRAFT},
        {"visibility": Event.Visibility.PRIVATE},
        {"visibility": Event.Visibility.MEMBERS_ONLY},
        {"is_template": True, "status": Event.Status.DRAFT},
    ],
    ids=["draft", "private", "members-only", "template"],
)
def test_an_event_the_viewer_may_not_see_is_not_found(fields):
    owner = make_user()
    event = make_event(make_org(owner=owner), **fields)

    for stranger in (make_user(), AnonymousUser()):
        assert _orm_answer(stranger, event.pk) is None
        with pytest.raises(NotFound):
            get_public_event(stranger, event.pk)
    if not fields.get("is_template"):
        assert get_public_event(owner, event.pk).pk == event.pk
