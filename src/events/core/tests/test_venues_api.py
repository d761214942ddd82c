"""Venues under `/organization-admin/{slug}/venues`; a capacity increase enqueues waitlist
processing for the venue's future events (docs/spec/seed-tables.md, "Trigger sites")."""

import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from events.core.tests.factories import make_event, make_org, make_staff
from events.core.tests.org_admin_matrix import AdminRoute, expect_case, matrix_params, snapshot
from events.models import Event, Organization, StaffPermission, Venue

P = StaffPermission
VENUES = "/organization-admin/{slug}/venues"

ROUTES = [
    AdminRoute("get", VENUES, P.VIEW_ORGANIZATION_DETAILS, 200),
    AdminRoute(
        "post", VENUES, P.EDIT_ORGANIZATION, 201, lambda w: {"name": "Annex", "capacity": 5}
    ),
    AdminRoute(
        "patch",
        VENUES + "/{venue_id}",
        P.EDIT_ORGANIZATION,
        200,
        lambda w: {"capacity": 50},
        sub_object="venue_id",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("route", "case"), matrix_params(ROUTES))
def test_permission_matrix(api: Any, route: AdminRoute, case: str) -> None:
    expect_case(api, route, case)


def venues_url(org: Organization, venue: Venue | None = None) -> str:
    base = f"/organization-admin/{org.slug}/venues"
    return f"{base}/{venue.pk}" if venue else base


@pytest.mark.django_db
class TestCreateAndList:
    def test_editor_creates_a_venue(self, api: Any, org: Organization) -> None:
        editor = make_staff(org, edit_organization=True)
        body = {"name": "Great Hall", "capacity": 120, "address": "Ring 1"}
        response = api(editor).post(venues_url(org), body)
        assert response.status_code == 201, response.content
        assert {k: response.json()[k] for k in body} == body
        venue = Venue.objects.get(pk=response.json()["id"])
        assert (venue.organization, venue.capacity) == (org, 120)

    def test_capacity_may_be_left_empty(self, api: Any, org: Organization) -> None:
        response = api(org.owner).post(venues_url(org), {"name": "Park"})
        assert response.status_code == 201
        assert response.json()["capacity"] is None

    def test_a_name_taken_in_the_organisation_is_400(self, api: Any, org: Organization) -> None:
        Venue.objects.create(organization=org, name="Hall")
        before = snapshot()
        response = api(org.owner).post(venues_url(org), {"name": "Hall", "capacity": 3})
        assert response.status_code == 400
        assert "name" in response.json()["errors"]
        assert snapshot() == before

    def test_the_same_name_in_another_organisation_is_fine(
        self, api: Any, org: Organization
    ) -> None:
        Venue.objects.create(organization=make_org(), name="Hall")
        assert api(org.owner).post(venues_url(org), {"name": "Hall"}).status_code == 201

    @pytest.mark.parametrize(
        "body",
        [
            {"name": "Hall", "capacity": -1},
            {"name": "Hall", "capacity": 2**40},
            {"name": "Hall", "capacity": "many"},
            {"capacity": 3},
            {"name": "Hall", "seats": 3},
        ],
    )
    def test_schema_violations_are_422(
        self, api: Any, org: Organization, body: dict[str, Any]
    ) -> None:
        response = api(org.owner).post(venues_url(org), body)
        assert response.status_code == 422
        assert not Venue.objects.exists()

    def test_blank_name_is_400(self, api: Any, org: Organization) -> None:
        response = api(org.owner).post(venues_url(org), {"name": "  "})
        assert response.status_code == 400
        assert "name" in response.json()["errors"]
        assert not Venue.objects.exists()

    def test_list_shows_only_this_organisations_venues_by_name(
        self, api: Any, org: Organization
    ) -> None:
        Venue.objects.create(organization=org, name="B")
        Venue.objects.create(organization=org, name="A")
        Venue.objects.create(organization=make_org(), name="C")
        response = api(make_staff(org)).get(venues_url(org))
        assert response.status_code == 200
        assert [v["name"] for v in response.json()["results"]] == ["A", "B"]
        assert response.json()["count"] == 2


@pytest.mark.django_db
class TestUpdate:
    def test_fields_sent_change_and_others_stay(self, api: Any, org: Organization) -> None:
        venue = Venue.objects.create(organization=org, name="Hall", capacity=10, address="Ring 1")
        response = api(org.owner).patch(venues_url(org, venue), {"name": "Big hall"})
        assert response.status_code == 200
        venue.refresh_from_db()
        assert (venue.name, venue.capacity, venue.address) == ("Big hall", 10, "Ring 1")

    def test_capacity_null_removes_the_limit(self, api: Any, org: Organization) -> None:
        venue = Venue.objects.create(organization=org, name="Hall", capacity=10)
        response = api(org.owner).patch(venues_url(org, venue), {"capacity": None})
        assert response.status_code == 200
        venue.refresh_from_db()
        assert venue.capacity is None

    def test_renaming_onto_another_venue_is_400_and_changes_nothing(
        self, api: Any, org: Organization
    ) -> None:
        Venue.objects.create(organization=org, name="Taken")
        venue = Venue.objects.create(organization=org, name="Hall", capacity=10)
        before = snapshot()
        response = api(org.owner).patch(venues_url(org, venue), {"name": "Taken", "capacity": 20})
        assert response.status_code == 400
        assert snapshot() == before

    def test_unknown_venue_is_404(self, api: Any, org: Organization) -> None:
        url = f"/organization-admin/{org.slug}/venues/{uuid.uuid4()}"
        assert api(org.owner).patch(url, {"capacity": 3}).status_code == 404


# -- capacity up → waitlist processing for the venue's future events ---------------------------
class Hall:
    """A venue with two future events, a past one, a series template, and a neighbour's event."""

    def __init__(self, org: Organization, capacity: int | None) -> None:
        now = timezone.now()
        self.venue = Venue.objects.create(organization=org, name="Hall", capacity=capacity)
        self.future = [
            make_event(org, venue=self.venue, start=now + timedelta(days=days)) for days in (3, 9)
        ]
        self.past = make_event(org, venue=self.venue, start=now - timedelta(days=2))
        self.template = make_event(
            org,
            venue=self.venue,
            start=now + timedelta(days=5),
            is_template=True,
            status=Event.Status.DRAFT,
        )
        elsewhere = Venue.objects.create(organization=org, name="Elsewhere", capacity=capacity)
        self.neighbour = make_event(org, venue=elsewhere, start=now + timedelta(days=4))

    @property
    def future_ids(self) -> set[uuid.UUID]:
        return {event.pk for event in self.future}


PatchVenue = Callable[[Organization, Venue, dict[str, Any]], tuple[Any, list[uuid.UUID]]]


@pytest.fixture
def patch_venue(
    api: Any,
    dispatched: list[uuid.UUID],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> PatchVenue:
    """PATCH as the owner with on-commit callbacks run; → (response, dispatched event ids)."""

    def run(org: Organization, venue: Venue, body: dict[str, Any]) -> tuple[Any, list[uuid.UUID]]:
        with django_capture_on_commit_callbacks(execute=True):
            response = api(org.owner).patch(venues_url(org, venue), body)
        return response, list(dispatched)

    return run


@pytest.mark.django_db
class TestCapacityTrigger:
    @pytest.mark.parametrize(("old", "new"), [(10, 11), (10, 500), (10, None), (10, 0)])
    def test_more_seats_enqueue_processing_for_each_future_event(
        self, org: Organization, patch_venue: PatchVenue, old: int, new: int | None
    ) -> None:
        hall = Hall(org, capacity=old)
        response, ids = patch_venue(org, hall.venue, {"capacity": new})
        assert response.status_code == 200, response.content
        assert sorted(ids) == sorted(hall.future_ids)

    @pytest.mark.parametrize(("old", "new"), [(10, 9), (10, 10), (None, 50), (0, 50), (None, None)])
    def test_fewer_or_the_same_seats_enqueue_nothing(
        self, org: Organization, patch_venue: PatchVenue, old: int | None, new: int | None
    ) -> None:
        hall = Hall(org, capacity=old)
        response, ids = patch_venue(org, hall.venue, {"capacity": new})
        assert response.status_code == 200
        assert ids == []

    def test_a_change_without_capacity_enqueues_nothing(
        self, org: Organization, patch_venue: PatchVenue
    ) -> None:
        hall = Hall(org, capacity=10)
        response, ids = patch_venue(org, hall.venue, {"address": "New street 2"})
        assert response.status_code == 200
        assert ids == []

    def test_a_refused_update_enqueues_nothing(
        self, org: Organization, patch_venue: PatchVenue
    ) -> None:
        hall = Hall(org, capacity=10)
        response, ids = patch_venue(org, hall.venue, {"name": "Elsewhere", "capacity": 20})
        assert response.status_code == 400
        assert ids == []
        hall.venue.refresh_from_db()
        assert hall.venue.capacity == 10

    def test_the_new_capacity_counts_for_the_events(self, api: Any, org: Organization) -> None:
        hall = Hall(org, capacity=10)
        api(org.owner).patch(venues_url(org, hall.venue), {"capacity": 25})
        event = Event.objects.select_related("venue").get(pk=hall.future[0].pk)
        assert event.effective_capacity == 25


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_capacity_increase_dispatches_after_the_real_commit(
    api: Any, dispatched: list[uuid.UUID]
) -> None:
    """Without a wrapping test transaction the pass runs on the real commit, for future events."""
    org = make_org()
    hall = Hall(org, capacity=10)
    response = api(org.owner).patch(venues_url(org, hall.venue), {"capacity": 30})
    assert response.status_code == 200
    assert sorted(dispatched) == sorted(hall.future_ids)
