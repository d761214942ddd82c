"""`/organization-admin/{slug}`: members, membership requests and the blacklist, as a member
manager handles them.
"""

from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.core.tests.factories import make_member, make_org, make_staff
from events.core.tests.org_admin_matrix import snapshot
from events.models import Blacklist, Organization, OrganizationMember, OrganizationMembershipRequest


# -- members -----------------------------------------------------------------------------
@pytest.fixture
def manager(org: Organization) -> User:
    return make_staff(org, manage_members=True)


@pytest.mark.django_db
class TestMembers:
    def test_manager_adds_an_active_member(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        person = make_user()
        response = api(manager).post(
            f"/organization-admin/{org.slug}/members", {"user_id": str(person.pk)}
        )
        assert response.status_code == 201, response.content
        assert response.json()["status"] == "active"
        assert OrganizationMember.objects.get(organization=org, user=person).status == "active"

    @pytest.mark.parametrize("status", ["active", "paused", "cancelled", "banned"])
    def test_every_status_can_be_given(
        self, api: Any, org: Organization, manager: User, status: str
    ) -> None:
        body = {"user_id": str(make_user().pk), "status": status}
        response = api(manager).post(f"/organization-admin/{org.slug}/members", body)
        assert response.status_code == 201
        assert response.json()["status"] == status

    def test_unknown_status_is_400_and_nothing_is_written(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        body = {"user_id": str(make_user().pk), "status": "vip"}
        response = api(manager).post(f"/organization-admin/{org.slug}/members", body)
        assert response.status_code == 400
        assert "status" in response.json()["errors"]
        assert not OrganizationMember.objects.filter(organization=org).exists()

    def test_unknown_user_is_a_field_error(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        body = {"user_id": "00000000-0000-4000-8000-000000000000"}
        response = api(manager).post(f"/organization-admin/{org.slug}/members", body)
        assert response.status_code == 400
        assert "user_id" in response.json()["errors"]

    def test_adding_an_existing_member_is_409(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        person = make_member(org, status="cancelled")
        response = api(manager).post(
            f"/organization-admin/{org.slug}/members", {"user_id": str(person.pk)}
        )
        assert response.status_code == 409
        assert response.json()["code"] == "already_member"
        assert OrganizationMember.objects.get(organization=org, user=person).status == "cancelled"

    def test_patch_changes_the_status(self, api: Any, org: Organization, manager: User) -> None:
        person = make_member(org)
        url = f"/organization-admin/{org.slug}/members/{person.pk}"
        response = api(manager).patch(url, {"status": "banned"})
        assert response.status_code == 200
        assert OrganizationMember.objects.get(organization=org, user=person).status == "banned"

    def test_patch_with_unknown_status_changes_nothing(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        person = make_member(org)
        response = api(manager).patch(
            f"/organization-admin/{org.slug}/members/{person.pk}", {"status": ""}
        )
        assert response.status_code == 400
        assert OrganizationMember.objects.get(organization=org, user=person).status == "active"

    def test_delete_removes_the_membership(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        person = make_member(org)
        response = api(manager).delete(f"/organization-admin/{org.slug}/members/{person.pk}")
        assert response.status_code == 204
        assert not OrganizationMember.objects.filter(organization=org).exists()

    def test_list_filters_by_status(self, api: Any, org: Organization) -> None:
        make_member(org)
        paused = make_member(org, status="paused")
        viewer = make_staff(org)
        response = api(viewer).get(f"/organization-admin/{org.slug}/members", status="paused")
        assert response.status_code == 200
        assert [m["user"]["id"] for m in response.json()["results"]] == [str(paused.pk)]


# -- membership requests --------------------------------------------------------------------
def _request(org: Organization, user: User | None = None) -> OrganizationMembershipRequest:
    return OrganizationMembershipRequest.objects.create(organization=org, user=user or make_user())


@pytest.mark.django_db
class TestMembershipRequests:
    def test_list_shows_requests_newest_first_and_filters_by_status(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        first, second = _request(org), _request(org)
        decided = _request(org)
        OrganizationMembershipRequest.objects.filter(pk=decided.pk).update(status="rejected")
        url = f"/organization-admin/{org.slug}/membership-requests"
        ids = [r["id"] for r in api(manager).get(url, status="pending").json()["results"]]
        assert ids == [str(second.pk), str(first.pk)]
        assert api(manager).get(url).json()["count"] == 3

    def test_approve_makes_the_user_an_active_member(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        request = _request(org)
        url = f"/organization-admin/{org.slug}/membership-requests/{request.pk}/approve"
        response = api(manager).post(url)
        assert response.status_code == 200, response.content
        assert response.json()["status"] == "approved"
        assert response.json()["decided_at"] is not None
        request.refresh_from_db()
        assert request.decided_by == manager
        assert (
            OrganizationMember.objects.get(organization=org, user=request.user).status == "active"
        )

    def test_approve_reactivates_a_cancelled_membership(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        person = make_member(org, status="cancelled")
        request = _request(org, person)
        url = f"/organization-admin/{org.slug}/membership-requests/{request.pk}/approve"
        assert api(manager).post(url).status_code == 200
        memberships = OrganizationMember.objects.filter(organization=org, user=person)
        assert [m.status for m in memberships] == ["active"]

    def test_reject_records_the_decision_and_adds_no_member(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        request = _request(org)
        url = f"/organization-admin/{org.slug}/membership-requests/{request.pk}/reject"
        response = api(manager).post(url)
        assert response.status_code == 200
        assert response.json()["status"] == "rejected"
        assert not OrganizationMember.objects.filter(organization=org).exists()

    @pytest.mark.parametrize("decision", ["approve", "reject"])
    def test_a_decided_request_cannot_be_decided_again(
        self, api: Any, org: Organization, manager: User, decision: str
    ) -> None:
        request = _request(org)
        OrganizationMembershipRequest.objects.filter(pk=request.pk).update(status="rejected")
        before = snapshot()
        url = f"/organization-admin/{org.slug}/membership-requests/{request.pk}/{decision}"
        response = api(manager).post(url)
        assert response.status_code == 409
        assert response.json()["code"] == "request_not_pending"
        assert snapshot() == before


# -- blacklist -------------------------------------------------------------------------------
@pytest.mark.django_db
class TestBlacklist:
    def test_add_by_user_id(self, api: Any, org: Organization, manager: User) -> None:
        person = make_user()
        response = api(manager).post(
            f"/organization-admin/{org.slug}/blacklist", {"user_id": str(person.pk)}
        )
        assert response.status_code == 201, response.content
        assert response.json()["user"]["id"] == str(person.pk)
        assert Blacklist.objects.get(organization=org).user == person

    def test_add_by_email_stores_it_lowercased(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        body = {"email": "  Troll@Example.COM ", "reason": "spam"}
        response = api(manager).post(f"/organization-admin/{org.slug}/blacklist", body)
        assert response.status_code == 201
        assert response.json()["email"] == "troll@example.com"
        assert response.json()["user"] is None

    def test_a_listed_user_no_longer_sees_the_organisation(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        person = make_user(email="listed@example.com")
        assert api(person).get(f"/organizations/{org.slug}").status_code == 200
        api(manager).post(
            f"/organization-admin/{org.slug}/blacklist", {"email": "LISTED@example.com"}
        )
        assert api(person).get(f"/organizations/{org.slug}").status_code == 404

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({}, "non_field_errors"),
            ({"email": ""}, "non_field_errors"),
            ({"email": "not-an-address"}, "email"),
            ({"user_id": "00000000-0000-4000-8000-000000000000"}, "user_id"),
        ],
    )
    def test_invalid_targets_are_400_and_nothing_is_written(
        self, api: Any, org: Organization, manager: User, body: dict[str, Any], field: str
    ) -> None:
        response = api(manager).post(f"/organization-admin/{org.slug}/blacklist", body)
        assert response.status_code == 400
        assert field in response.json()["errors"]
        assert not Blacklist.objects.exists()

    @pytest.mark.parametrize("by", ["user_id", "email"])
    def test_the_owner_cannot_be_listed(
        self, api: Any, org: Organization, manager: User, by: str
    ) -> None:
        body = (
            {"user_id": str(org.owner.pk)}
            if by == "user_id"
            else {"email": org.owner.email.upper()}
        )
        response = api(manager).post(f"/organization-admin/{org.slug}/blacklist", body)
        assert response.status_code == 400
        assert by in response.json()["errors"]
        assert not Blacklist.objects.exists()

    def test_listing_the_same_person_twice_is_409(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        person = make_user()
        Blacklist.objects.create(organization=org, user=person)
        response = api(manager).post(
            f"/organization-admin/{org.slug}/blacklist", {"email": person.email}
        )
        assert response.status_code == 409
        assert response.json()["code"] == "already_blacklisted"
        assert Blacklist.objects.count() == 1

    def test_the_same_person_may_be_listed_by_another_organisation(
        self, api: Any, org: Organization, manager: User
    ) -> None:
        Blacklist.objects.create(organization=make_org(), email="twice@example.com")
        response = api(manager).post(
            f"/organization-admin/{org.slug}/blacklist", {"email": "twice@example.com"}
        )
        assert response.status_code == 201

    def test_delete_removes_the_entry(self, api: Any, org: Organization, manager: User) -> None:
        entry = Blacklist.objects.create(organization=org, email="gone@example.com")
        response = api(manager).delete(f"/organization-admin/{org.slug}/blacklist/{entry.pk}")
        assert response.status_code == 204
        assert not Blacklist.objects.exists()

    def test_list_shows_the_entries(self, api: Any, org: Organization, manager: User) -> None:
        Blacklist.objects.create(organization=org, email="a@example.com")
        Blacklist.objects.create(organization=make_org(), email="b@example.com")
        response = api(manager).get(f"/organization-admin/{org.slug}/blacklist")
        assert response.status_code == 200
        assert [e["email"] for e in response.json()["results"]] == ["a@example.com"]
