"""Public organisation routes: create, read, ask to join."""

from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_member, make_org, make_staff
from events.core.tests.org_admin_matrix import snapshot
from events.models import (
    Blacklist,
    Organization,
    OrganizationMembershipRequest,
    OrganizationStaff,
)

pytestmark = pytest.mark.django_db


# -- create ----------------------------------------------------------------------------------
class TestCreateOrganization:
    def test_caller_becomes_owner_and_slug_comes_from_the_name(self, api: Any, user: User) -> None:
        response = api(user).post("/organizations", {"name": "Vienna Chess Club"})
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["slug"] == "vienna-chess-club"
        assert body["timezone"] == "UTC"
        assert body["visibility"] == "public"
        assert body["owner_id"] == str(user.pk)
        organization = Organization.objects.get(pk=body["id"])
        assert organization.owner == user
        assert not OrganizationStaff.objects.filter(organization=organization).exists()

    def test_the_creator_can_administer_the_new_organisation(self, api: Any, user: User) -> None:
        slug = api(user).post("/organizations", {"name": "Makers"}).json()["slug"]
        response = api(user).patch(
            f"/organization-admin/{slug}", {"accept_membership_requests": True}
        )
        assert response.status_code == 200

    def test_given_slug_and_timezone_are_kept(self, api: Any, user: User) -> None:
        body = {"name": "Night Owls", "slug": "owls", "timezone": "Europe/Vienna"}
        response = api(user).post("/organizations", body)
        assert response.status_code == 201
        assert (response.json()["slug"], response.json()["timezone"]) == ("owls", "Europe/Vienna")

    def test_a_taken_generated_slug_gets_a_numeric_suffix(self, api: Any, user: User) -> None:
        make_org(name="Other", slug="book-club")
        make_org(name="Other 2", slug="book-club-2")
        response = api(user).post("/organizations", {"name": "Book Club"})
        assert response.status_code == 201
        assert response.json()["slug"] == "book-club-3"

    def test_a_name_without_slug_characters_still_gets_a_slug(self, api: Any, user: User) -> None:
        response = api(user).post("/organizations", {"name": "東京"})
        assert response.status_code == 201
        assert response.json()["slug"] == "organization"

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"name": "Fine", "slug": "taken"}, "slug"),
            ({"name": "Taken name"}, "name"),
            ({"name": "Fine", "slug": "Not a slug!"}, "slug"),
            ({"name": "Fine", "timezone": "Mars/Olympus"}, "timezone"),
            ({"name": "   "}, "name"),
        ],
    )
    def test_invalid_values_are_400_and_nothing_is_written(
        self, api: Any, user: User, body: dict[str, Any], field: str
    ) -> None:
        make_org(name="Taken name", slug="taken")
        before = snapshot()
        response = api(user).post("/organizations", body)
        assert response.status_code == 400, response.content
        assert response.json()["code"] == "invalid"
        assert field in response.json()["errors"]
        assert snapshot() == before

    @pytest.mark.parametrize("body", [{}, {"name": 7}, {"name": "Ok", "owner_id": "x"}])
    def test_schema_violations_are_422(self, api: Any, user: User, body: dict[str, Any]) -> None:
        response = api(user).post("/organizations", body)
        assert response.status_code == 422
        assert response.json()["code"] == "invalid"
        assert not Organization.objects.exists()

    def test_anonymous_cannot_create(self, api: Any) -> None:
        response = api(None).post("/organizations", {"name": "Ghosts"})
        assert response.status_code == 401
        assert not Organization.objects.exists()


# -- read --------------------------------------------------------------------------------------
class TestGetOrganization:
    def test_anyone_sees_a_public_organisation(self, api: Any) -> None:
        org = make_org(name="Open House", description="Hello")
        response = api(None).get(f"/organizations/{org.slug}")
        assert response.status_code == 200
        assert response.json()["name"] == "Open House"
        assert response.json()["description"] == "Hello"

    def test_a_private_organisation_is_hidden_from_outsiders(self, api: Any, user: User) -> None:
        org = make_org(visibility="private")
        assert api(None).get(f"/organizations/{org.slug}").status_code == 404
        assert api(user).get(f"/organizations/{org.slug}").status_code == 404

    @pytest.mark.parametrize("role", ["owner", "staff", "member"])
    def test_a_private_organisation_is_shown_to_its_people(self, api: Any, role: str) -> None:
        org = make_org(visibility="private")
        person = {
            "owner": lambda: org.owner,
            "staff": lambda: make_staff(org),
            "member": lambda: make_member(org),
        }[role]()
        assert api(person).get(f"/organizations/{org.slug}").status_code == 200

    def test_a_blacklisted_user_does_not_see_the_organisation(self, api: Any, user: User) -> None:
        org = make_org()
        Blacklist.objects.create(organization=org, email=user.email.upper())
        assert api(user).get(f"/organizations/{org.slug}").status_code == 404

    def test_unknown_slug_is_404(self, api: Any) -> None:
        response = api(None).get("/organizations/no-such-org")
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"

    def test_a_bad_token_is_401_even_on_a_public_read(self, api: Any) -> None:
        org = make_org()
        client = api(None)
        client.headers["Authorization"] = "Bearer not-a-token"
        assert client.get(f"/organizations/{org.slug}").status_code == 401


# -- membership requests -------------------------------------------------------------------------
@pytest.fixture
def club(db: None) -> Organization:
    return make_org(accept_membership_requests=True)


def _ask(api: Any, user: User | None, org: Organization, **body: Any) -> Any:
    return api(user).post(f"/organizations/{org.slug}/membership-requests", body or None)


class TestMembershipRequest:
    def test_a_user_asks_to_join(self, api: Any, user: User, club: Organization) -> None:
        response = _ask(api, user, club, message="I play the oboe.")
        assert response.status_code == 201, response.content
        assert response.json()["status"] == "pending"
        request = OrganizationMembershipRequest.objects.get(organization=club)
        assert (request.user, request.message) == (user, "I play the oboe.")

    def test_the_body_is_optional(self, api: Any, user: User, club: Organization) -> None:
        assert _ask(api, user, club).status_code == 201

    def test_refused_when_the_organisation_does_not_accept_requests(
        self, api: Any, user: User
    ) -> None:
        org = make_org(accept_membership_requests=False)
        response = _ask(api, user, org)
        assert response.status_code == 400
        assert response.json()["code"] == "not_accepting_requests"
        assert not OrganizationMembershipRequest.objects.exists()

    @pytest.mark.parametrize("status", ["active", "paused"])
    def test_a_member_cannot_ask_again(self, api: Any, club: Organization, status: str) -> None:
        member = make_member(club, status=status)
        response = _ask(api, member, club)
        assert response.status_code == 409
        assert response.json()["code"] == "already_member"
        assert not OrganizationMembershipRequest.objects.exists()

    def test_a_pending_request_cannot_be_repeated(
        self, api: Any, user: User, club: Organization
    ) -> None:
        OrganizationMembershipRequest.objects.create(organization=club, user=user)
        response = _ask(api, user, club)
        assert response.status_code == 409
        assert response.json()["code"] == "request_pending"
        assert OrganizationMembershipRequest.objects.count() == 1

    def test_after_a_rejection_the_user_may_ask_again(
        self, api: Any, user: User, club: Organization
    ) -> None:
        OrganizationMembershipRequest.objects.create(
            organization=club, user=user, status="rejected"
        )
        assert _ask(api, user, club).status_code == 201

    def test_a_cancelled_member_may_ask_again(self, api: Any, club: Organization) -> None:
        former = make_member(club, status="cancelled")
        assert _ask(api, former, club).status_code == 201

    def test_a_banned_member_cannot_ask(self, api: Any, club: Organization) -> None:
        banned = make_member(club, status="banned")
        response = _ask(api, banned, club)
        assert response.status_code == 403
        assert response.json()["code"] == "membership_banned"
        assert not OrganizationMembershipRequest.objects.exists()

    def test_an_invisible_organisation_is_404(self, api: Any, user: User) -> None:
        org = make_org(visibility="private", accept_membership_requests=True)
        assert _ask(api, user, org).status_code == 404
        assert not OrganizationMembershipRequest.objects.exists()

    def test_anonymous_is_401(self, api: Any, club: Organization) -> None:
        assert _ask(api, None, club).status_code == 401

    def test_too_long_message_is_422(self, api: Any, user: User, club: Organization) -> None:
        assert _ask(api, user, club, message="x" * 2001).status_code == 422
        assert not OrganizationMembershipRequest.objects.exists()


def test_a_new_user_can_create_then_find_their_organisation(api: Any) -> None:
    owner = make_user()
    created = api(owner).post("/organizations", {"name": "Round Trip"}).json()
    fetched = api(None).get(f"/organizations/{created['slug']}").json()
    assert fetched == created
