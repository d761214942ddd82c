"""Every event administration route against every kind of caller (docs/spec/quality.md).

For each route: anonymous → 401; a plain user who can see the event → 403; a staff
member with exactly the needed permission switched off → 403; an event the caller
cannot see (a draft of another organisation) → 404; a sub-object of another event →
404; a staff member with the permission → success. Every refusal writes nothing.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.event_admin_support import snapshot
from events.core.tests.factories import make_event, make_org, make_staff
from events.models import Event, EventRSVP, EventWaitList, Invitation, Organization


@dataclass
class EventObjects:
    event: Event
    rsvp: EventRSVP | None
    invitation: Invitation
    entry: EventWaitList

    @classmethod
    def build(cls, organization: Organization, *, status: str, with_rsvp: bool) -> "EventObjects":
        # Check-in open now, so the check-in routes can succeed for the permitted caller.
        event = make_event(
            organization,
            status=status,
            max_attendees=5,
            waitlist_open=True,
            check_in_starts_at=timezone.now() - timedelta(hours=1),
        )
        rsvp = None
        if with_rsvp:
            rsvp = EventRSVP.objects.create(event=event, user=make_user(), status="yes")
            Event.objects.filter(pk=event.pk).update(attendee_count=1)
        return cls(
            event=event,
            rsvp=rsvp,
            invitation=Invitation.objects.create(event=event, user=make_user()),
            entry=EventWaitList.objects.create(event=event, user=make_user()),
        )

    def placeholders(self) -> dict[str, str]:
        return {
            "event_id": str(self.event.pk),
            "rsvp_id": str(self.rsvp.pk if self.rsvp else ""),
            "invitation_id": str(self.invitation.pk),
            "entry_id": str(self.entry.pk),
        }


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    permission: str
    ok: int
    body: Callable[["World"], dict[str, Any]] | None = None
    sub_object: str | None = None
    event_status: str = "open"
    with_rsvp: bool = True

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path}"


@dataclass
class World:
    home: EventObjects
    sibling: EventObjects  # another event of the same organisation
    foreign_draft: Event  # a draft of another organisation: invisible to everyone outside it
    plain_user: User
    newcomer: User

    @classmethod
    def build(cls, route: Route) -> "World":
        organization = make_org()
        return cls(
            home=EventObjects.build(
                organization, status=route.event_status, with_rsvp=route.with_rsvp
            ),
            sibling=EventObjects.build(organization, status="open", with_rsvp=True),
            foreign_draft=make_event(status="draft"),
            plain_user=make_user(),
            newcomer=make_user(),
        )

    @property
    def organization(self) -> Organization:
        return self.home.event.organization

    def url(self, route: Route, *, event: Event | None = None, foreign_sub: bool = False) -> str:
        values = self.home.placeholders()
        if foreign_sub and route.sub_object:
            values[route.sub_object] = self.sibling.placeholders()[route.sub_object]
        if event is not None:
            values["event_id"] = str(event.pk)
        return route.path.format(**values)


def _new_rsvp(world: World) -> dict[str, Any]:
    return {"user_id": str(world.newcomer.pk), "status": "maybe"}


def _new_invitation(world: World) -> dict[str, Any]:
    return {"user_id": str(world.newcomer.pk)}


BASE = "/event-admin/{event_id}"
ROUTES = [
    Route("patch", BASE, "edit_event", 200, body=lambda w: {"name": "Renamed"}),
    Route("delete", BASE, "delete_event", 204, with_rsvp=False),
    Route("post", BASE + "/status/open", "open_event", 200, event_status="closed"),
    Route("post", BASE + "/status/closed", "close_event", 200),
    Route("post", BASE + "/status/cancelled", "close_event", 200),
    Route("post", BASE + "/status/draft", "close_event", 200),
    Route("get", BASE + "/rsvps", "manage_event", 200),
    Route("get", BASE + "/deliveries", "manage_event", 200),
    Route("post", BASE + "/rsvps", "manage_event", 201, body=_new_rsvp),
    Route(
        "patch",
        BASE + "/rsvps/{rsvp_id}",
        "manage_event",
        200,
        body=lambda w: {"status": "no"},
        sub_object="rsvp_id",
    ),
    Route("delete", BASE + "/rsvps/{rsvp_id}", "manage_event", 204, sub_object="rsvp_id"),
    Route(
        "post",
        BASE + "/rsvps/{rsvp_id}/check-in",
        "check_in_attendees",
        200,
        sub_object="rsvp_id",
    ),
    Route("get", BASE + "/invitations", "invite_to_event", 200),
    Route("post", BASE + "/invitations", "invite_to_event", 201, body=_new_invitation),
    Route(
        "delete",
        BASE + "/invitations/{invitation_id}",
        "invite_to_event",
        204,
        sub_object="invitation_id",
    ),
    Route("get", BASE + "/waitlist", "invite_to_event", 200),
    Route("get", BASE + "/waitlist/stats", "invite_to_event", 200),
    Route("delete", BASE + "/waitlist/{entry_id}", "invite_to_event", 204, sub_object="entry_id"),
]

CASES = [
    "anonymous_401",
    "plain_user_403",
    "staff_without_permission_403",
    "invisible_event_404",
    "other_events_object_404",
    "permitted_staff_succeeds",
]


def _params() -> list[Any]:
    return [
        pytest.param(route, case, id=f"{route}-{case}")
        for route in ROUTES
        for case in CASES
        if case != "other_events_object_404" or route.sub_object is not None
    ]


def _call(api: Any, route: Route, world: World, caller: User | None, url: str) -> Any:
    client = api(caller)
    if route.method == "get":
        return client.get(url)
    return getattr(client, route.method)(url, route.body(world) if route.body else None)


def _refusal(case: str, route: Route, world: World) -> tuple[User | None, str, int]:
    if case == "anonymous_401":
        return None, world.url(route), 401
    if case == "plain_user_403":
        return world.plain_user, world.url(route), 403
    if case == "staff_without_permission_403":
        staff = make_staff(world.organization, **{route.permission: False})
        return staff, world.url(route), 403
    if case == "invisible_event_404":
        # The home organisation's owner holds every permission, but not over there.
        return world.organization.owner, world.url(route, event=world.foreign_draft), 404
    assert case == "other_events_object_404"
    return world.organization.owner, world.url(route, foreign_sub=True), 404


@pytest.mark.django_db
@pytest.mark.parametrize(("route", "case"), _params())
def test_event_admin_route(api, route: Route, case: str) -> None:
    world = World.build(route)
    if case == "permitted_staff_succeeds":
        # Every other permission off: the route needs exactly the one it names.
        only = {key: False for key in _ALL_KEYS} | {route.permission: True}
        staff = make_staff(world.organization, **only)
        response = _call(api, route, world, staff, world.url(route))
        assert response.status_code == route.ok, response.content
        return
    caller, url, status = _refusal(case, route, world)
    assert world.plain_user.pk != world.organization.owner_id
    visible = api(world.plain_user).get(f"/events/{world.home.event.pk}")
    assert visible.status_code == 200  # the 403 below is not an invisible event in disguise
    before = snapshot()
    response = _call(api, route, world, caller, url)
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] and body["detail"]
    assert snapshot() == before


_ALL_KEYS = [
    "view_organization_details",
    "edit_event",
    "open_event",
    "close_event",
    "manage_event",
    "manage_tickets",
    "check_in_attendees",
    "invite_to_event",
]


# -- POST /organization-admin/{slug}/create-event ---------------------------------------
def _create_body() -> dict[str, Any]:
    return {"name": "New", "start": (timezone.now() + timedelta(days=3)).isoformat()}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "case",
    ["anonymous_401", "plain_user_403", "staff_without_permission_403", "private_org_404"],
)
def test_create_event_refusals_write_nothing(api, case: str) -> None:
    organization = make_org()
    private = make_org(visibility=Organization.Visibility.PRIVATE)
    caller: User | None
    slug, status = organization.slug, {"anonymous_401": 401}.get(case, 403)
    if case == "anonymous_401":
        caller = None
    elif case == "plain_user_403":
        caller = make_user()
    elif case == "staff_without_permission_403":
        caller = make_staff(organization, create_event=False)
    else:
        caller, slug, status = make_user(), private.slug, 404
    before = snapshot()
    response = api(caller).post(f"/organization-admin/{slug}/create-event", _create_body())
    assert response.status_code == status, response.content
    assert response.json()["code"] and response.json()["detail"]
    assert snapshot() == before


@pytest.mark.django_db
def test_create_event_with_exactly_create_event_succeeds(api) -> None:
    organization = make_org()
    staff = make_staff(organization, **{key: False for key in _ALL_KEYS}, create_event=True)
    response = api(staff).post(
        f"/organization-admin/{organization.slug}/create-event", _create_body()
    )
    assert response.status_code == 201
