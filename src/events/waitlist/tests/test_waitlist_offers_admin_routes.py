"""The permission matrix of every waitlist admin route: who may call each one, and that a
refusal writes nothing.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.models.organization import default_staff_permissions
from events.core.tests.factories import make_event, make_org
from events.models import Event, EventWaitList, Organization, OrganizationStaff, WaitlistOffer
from events.waitlist.tests.waitlist_offers_admin_support import (
    Status,
    _entry,
    _event,
    _everything,
    _offer,
)


# -- permission matrix ------------------------------------------------------------------------
@dataclass
class Objects:
    """One event with a queue entry without an offer, a pending and an expired offer."""

    event: Event
    entry: EventWaitList
    pending: WaitlistOffer
    expired: WaitlistOffer

    @classmethod
    def build(cls, organization: Organization) -> "Objects":
        event = _event(organization)
        return cls(
            event=event,
            entry=_entry(event),
            pending=_offer(event),
            expired=_offer(event, status=Status.EXPIRED),
        )


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    permission: str
    ok: int
    body: Callable[[Objects], dict[str, Any]] | None = None
    sub_object: str | None = None  # an attribute of Objects, taken from a sibling event

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path}"


BASE = "/event-admin/{event}"
ROUTES = [
    Route("get", BASE + "/waitlist-settings", "manage_event", 200),
    Route(
        "patch",
        BASE + "/waitlist-settings",
        "manage_event",
        200,
        body=lambda o: {"waitlist_batch_size": 2, "waitlist_open": False},
    ),
    Route("get", BASE + "/waitlist-offers", "invite_to_event", 200),
    Route(
        "post",
        BASE + "/waitlist-offers",
        "manage_event",
        201,
        body=lambda o: {"waitlist_entry_id": str(o.entry.pk)},
        sub_object="entry",
    ),
    Route(
        "post",
        BASE + "/waitlist-offers/{pending}/revoke",
        "manage_event",
        200,
        sub_object="pending",
    ),
    Route(
        "post",
        BASE + "/waitlist-offers/{expired}/reactivate",
        "manage_event",
        200,
        body=lambda o: {},
        sub_object="expired",
    ),
]
CASES = [
    "anonymous_401",
    "plain_user_403",
    "staff_without_permission_403",
    "invisible_event_404",
    "other_events_object_404",
    "permitted_staff_succeeds",
]


def _staff(organization: Organization, permissions: dict[str, bool]) -> User:
    """A staff member with the default permissions, overridden by `permissions`."""
    user = make_user()
    OrganizationStaff.objects.create(
        organization=organization, user=user, permissions=default_staff_permissions() | permissions
    )
    return user


def _matrix() -> list[Any]:
    return [
        pytest.param(route, case, id=f"{route}-{case}")
        for route in ROUTES
        for case in CASES
        if case != "other_events_object_404" or route.sub_object is not None
    ]


def _call(api: Any, caller: User | None, route: Route, target: Objects, event: Event) -> Any:
    """`target` supplies the sub-object (path or body); `event` the event in the path."""
    url = route.path.format(event=event.pk, pending=target.pending.pk, expired=target.expired.pk)
    client = api(caller)
    if route.method == "get":
        return client.get(url)
    return getattr(client, route.method)(url, route.body(target) if route.body else None)


@pytest.mark.django_db
@pytest.mark.parametrize(("route", "case"), _matrix())
def test_waitlist_admin_route(api, route: Route, case: str) -> None:
    organization = make_org()
    home, sibling = Objects.build(organization), Objects.build(organization)
    foreign_draft = make_event(make_org(), status="draft")
    if case == "permitted_staff_succeeds":
        only = dict.fromkeys(default_staff_permissions(), False) | {route.permission: True}
        staff = _staff(organization, only)
        response = _call(api, staff, route, home, home.event)
        assert response.status_code == route.ok, response.content
        return
    plain = make_user()
    assert api(plain).get(f"/events/{home.event.pk}").status_code == 200  # visible to them
    callers: dict[str, tuple[User | None, Objects, Event, int]] = {
        "anonymous_401": (None, home, home.event, 401),
        "plain_user_403": (plain, home, home.event, 403),
        "staff_without_permission_403": (
            _staff(organization, {route.permission: False}),
            home,
            home.event,
            403,
        ),
        # The owner holds every permission here, but cannot see the other organisation's draft.
        "invisible_event_404": (organization.owner, home, foreign_draft, 404),
        "other_events_object_404": (organization.owner, sibling, home.event, 404),
    }
    caller, target, event, status = callers[case]
    before = _everything()
    response = _call(api, caller, route, target, event)
    assert response.status_code == status, response.content
    assert response.json()["code"] and response.json()["detail"]
    assert _everything() == before
