"""The permission matrix of `/organization-admin/{slug}` routes (docs/spec/quality.md: every route).

`World` builds one public organisation with one object of every kind (staff row, member,
pending request, blacklist entry, venue), a second organisation with the same kinds,
and a private organisation. `AdminRoute` describes a route: its permission (None = the
owner only), a body, and which path placeholder names a sub-object. The test modules
parametrise over their routes and over `CASES`; `expect_case` checks one cell and that
a refused request wrote nothing.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_member, make_org, make_staff
from events.models import (
    Blacklist,
    Organization,
    OrganizationMember,
    OrganizationMembershipRequest,
    OrganizationStaff,
    StaffPermission,
    Venue,
)

ALL_ON = {key: True for key in StaffPermission.values}


@dataclass
class OrgObjects:
    organization: Organization
    staff_user: User
    member_user: User
    request: OrganizationMembershipRequest
    entry: Blacklist
    venue: Venue

    @classmethod
    def build(cls, **org_fields: Any) -> "OrgObjects":
        organization = make_org(**org_fields)
        requester = make_user()
        return cls(
            organization=organization,
            staff_user=make_staff(organization),
            member_user=make_member(organization),
            request=OrganizationMembershipRequest.objects.create(
                organization=organization, user=requester
            ),
            entry=Blacklist.objects.create(organization=organization, email=f"x-{requester.email}"),
            venue=Venue.objects.create(organization=organization, name="Main hall", capacity=10),
        )

    def placeholders(self) -> dict[str, str]:
        return {
            "slug": self.organization.slug,
            "staff_user": str(self.staff_user.pk),
            "member_user": str(self.member_user.pk),
            "request_id": str(self.request.pk),
            "entry_id": str(self.entry.pk),
            "venue_id": str(self.venue.pk),
        }


@dataclass
class World:
    home: OrgObjects
    other: OrgObjects
    private: OrgObjects
    plain_user: User
    newcomer: User

    @classmethod
    def build(cls) -> "World":
        return cls(
            home=OrgObjects.build(),
            other=OrgObjects.build(),
            private=OrgObjects.build(visibility=Organization.Visibility.PRIVATE),
            plain_user=make_user(),
            newcomer=make_user(),
        )

    @property
    def owner(self) -> User:
        return self.home.organization.owner


@dataclass(frozen=True)
class AdminRoute:
    method: str
    path: str  # e.g. "/organization-admin/{slug}/staff/{staff_user}"
    permission: str | None  # None: only the owner
    ok: int
    body: Callable[[World], dict[str, Any]] | None = None
    sub_object: str | None = None  # the placeholder that names an object of the organisation

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path}"

    def url(self, world: World, org: OrgObjects, sub_from: OrgObjects | None = None) -> str:
        values = org.placeholders()
        if self.sub_object is not None and sub_from is not None:
            values[self.sub_object] = sub_from.placeholders()[self.sub_object]
        return self.path.format(**values)


CASES = [
    "anonymous_401",
    "plain_user_403",
    "staff_without_permission_403",
    "private_org_invisible_404",
    "other_orgs_object_404",
    "permitted_caller_succeeds",
]


def snapshot() -> list[Any]:
    """Everything an organisation admin route can change, to show a refusal wrote nothing."""
    return [
        list(Organization.objects.order_by("pk").values()),
        list(OrganizationStaff.objects.order_by("pk").values()),
        list(OrganizationMember.objects.order_by("pk").values()),
        list(OrganizationMembershipRequest.objects.order_by("pk").values()),
        list(Blacklist.objects.order_by("pk").values()),
        list(Venue.objects.order_by("pk").values()),
    ]


def _staff_without(route: AdminRoute, world: World) -> User:
    """Staff of the home organisation lacking exactly what the route needs."""
    if route.permission is None:
        return make_staff(world.home.organization, **ALL_ON)
    return make_staff(world.home.organization, **{route.permission: False})


def _permitted(route: AdminRoute, world: World) -> User:
    if route.permission is None:
        return world.owner
    return make_staff(world.home.organization, **{route.permission: True})


def _request(api: Any, route: AdminRoute, world: World, caller: User | None, url: str) -> Any:
    body = route.body(world) if route.body else None
    client = api(caller)
    if route.method == "get":
        return client.get(url)
    return getattr(client, route.method)(url, body)


def _refusal_for(case: str, route: AdminRoute, world: World) -> tuple[User | None, str, int]:
    home, url = world.home, route.url(world, world.home)
    if case == "anonymous_401":
        return None, url, 401
    if case == "plain_user_403":
        return world.plain_user, url, 403
    if case == "staff_without_permission_403":
        return _staff_without(route, world), url, 403
    if case == "private_org_invisible_404":
        return world.plain_user, route.url(world, world.private), 404
    assert case == "other_orgs_object_404"
    return world.owner, route.url(world, home, sub_from=world.other), 404


def matrix_params(routes: list[AdminRoute]) -> list[Any]:
    """Every (route, case) cell; the sub-object case only for routes that name one."""
    return [
        pytest.param(route, case, id=f"{route}-{case}")
        for route in routes
        for case in CASES
        if case != "other_orgs_object_404" or route.sub_object is not None
    ]


def expect_case(api: Any, route: AdminRoute, case: str) -> None:
    """Run one cell of the matrix against a fresh world."""
    world = World.build()
    if case == "permitted_caller_succeeds":
        permitted = _permitted(route, world)
        response = _request(api, route, world, permitted, route.url(world, world.home))
        assert response.status_code == route.ok, response.content
        return
    caller, url, status = _refusal_for(case, route, world)
    before = snapshot()
    response = _request(api, route, world, caller, url)
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] and body["detail"]
    assert snapshot() == before
