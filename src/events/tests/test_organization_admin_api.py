"""`/organization-admin/{slug}`: settings, staff, members, membership requests, blacklist."""

from typing import Any

import pytest

from accounts.models import User
from accounts.tests.factories import make_user
from events.models import (
    Blacklist,
    Organization,
    OrganizationMember,
    OrganizationMembershipRequest,
    OrganizationStaff,
    StaffPermission,
)
from events.models.organization import STAFF_DEFAULT_PERMISSIONS
from events.tests.factories import make_member, make_org, make_staff
from events.tests.org_admin_matrix import AdminRoute, expect_case, matrix_params, snapshot

P = StaffPermission
ADMIN = "/organization-admin/{slug}"

ROUTES = [
    AdminRoute("patch", ADMIN, P.EDIT_ORGANIZATION, 200, lambda w: {"name": "Renamed"}),
    AdminRoute("get", ADMIN + "/staff", P.VIEW_ORGANIZATION_DETAILS, 200),
    AdminRoute("post", ADMIN + "/staff", None, 201, lambda w: {"user_id": str(w.newcomer.pk)}),
    AdminRoute(
        "patch",
        ADMIN + "/staff/{staff_user}",
        None,
        200,
        lambda w: {"permissions": {"create_event": True}},
        sub_object="staff_user",
    ),
    AdminRoute("delete", ADMIN + "/staff/{staff_user}", None, 204, sub_object="staff_user"),
    AdminRoute("get", ADMIN + "/members", P.VIEW_ORGANIZATION_DETAILS, 200),
    AdminRoute(
        "post", ADMIN + "/members", P.MANAGE_MEMBERS, 201, lambda w: {"user_id": str(w.newcomer.pk)}
    ),
    AdminRoute(
        "patch",
        ADMIN + "/members/{member_user}",
        P.MANAGE_MEMBERS,
        200,
        lambda w: {"status": "paused"},
        sub_object="member_user",
    ),
    AdminRoute(
        "delete", ADMIN + "/members/{member_user}", P.MANAGE_MEMBERS, 204, sub_object="member_user"
    ),
    AdminRoute("get", ADMIN + "/membership-requests", P.MANAGE_MEMBERS, 200),
    AdminRoute(
        "post",
        ADMIN + "/membership-requests/{request_id}/approve",
        P.MANAGE_MEMBERS,
        200,
        sub_object="request_id",
    ),
    AdminRoute(
        "post",
        ADMIN + "/membership-requests/{request_id}/reject",
        P.MANAGE_MEMBERS,
        200,
        sub_object="request_id",
    ),
    AdminRoute("get", ADMIN + "/blacklist", P.MANAGE_MEMBERS, 200),
    AdminRoute(
        "post", ADMIN + "/blacklist", P.MANAGE_MEMBERS, 201, lambda w: {"email": "no@example.com"}
    ),
    AdminRoute(
        "delete", ADMIN + "/blacklist/{entry_id}", P.MANAGE_MEMBERS, 204, sub_object="entry_id"
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("route", "case"), matrix_params(ROUTES))
def test_permission_matrix(api: Any, route: AdminRoute, case: str) -> None:
    expect_case(api, route, case)


def _owner(org: Organization) -> User:
    return org.owner


# -- organisation settings ---------------------------------------------------------------
@pytest.mark.django_db
class TestUpdateOrganization:
    def test_staff_with_edit_organization_changes_the_settings(
        self, api: Any, org: Organization
    ) -> None:
        editor = make_staff(org, edit_organization=True)
        body = {
            "name": "Renamed club",
            "timezone": "Europe/Vienna",
            "visibility": "private",
            "accept_membership_requests": True,
            "description": "We meet on Tuesdays.",
        }
        response = api(editor).patch(f"/organization-admin/{org.slug}", body)
        assert response.status_code == 200, response.content
        assert {k: response.json()[k] for k in body} == body
        org.refresh_from_db()
        assert (org.name, org.timezone, org.visibility) == (
            "Renamed club",
            "Europe/Vienna",
            "private",
        )
        assert org.accept_membership_requests is True

    def test_fields_not_sent_keep_their_value(self, api: Any, org: Organization) -> None:
        response = api(org.owner).patch(
            f"/organization-admin/{org.slug}", {"timezone": "Asia/Tokyo"}
        )
        assert response.status_code == 200
        org.refresh_from_db()
        assert org.timezone == "Asia/Tokyo"
        assert org.name == response.json()["name"]

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"timezone": "Mars/Olympus"}, "timezone"),
            ({"visibility": "secret"}, "visibility"),
            ({"name": ""}, "name"),
            ({"name": None}, "name"),
        ],
    )
    def test_invalid_values_are_400_and_change_nothing(
        self, api: Any, org: Organization, body: dict[str, Any], field: str
    ) -> None:
        before = snapshot()
        response = api(org.owner).patch(f"/organization-admin/{org.slug}", body)
        assert response.status_code == 400
        assert response.json()["code"] == "invalid"
        assert field in response.json()["errors"]
        assert snapshot() == before

    def test_name_of_another_organisation_is_refused(self, api: Any, org: Organization) -> None:
        other = make_org()
        response = api(org.owner).patch(f"/organization-admin/{org.slug}", {"name": other.name})
        assert response.status_code == 400
        assert "name" in response.json()["errors"]

    @pytest.mark.parametrize(
        "body", [{"slug": "new-slug"}, {"owner_id": "x"}, {"accept_membership_requests": "yes"}]
    )
    def test_unknown_or_mistyped_fields_are_422(
        self, api: Any, org: Organization, body: dict[str, Any]
    ) -> None:
        before = snapshot()
        response = api(org.owner).patch(f"/organization-admin/{org.slug}", body)
        assert response.status_code == 422
        assert response.json()["code"] == "invalid"
        assert snapshot() == before


# -- staff -------------------------------------------------------------------------------
@pytest.mark.django_db
class TestStaff:
    def test_owner_adds_staff_with_the_default_permissions(
        self, api: Any, org: Organization
    ) -> None:
        newcomer = make_user()
        response = api(org.owner).post(
            f"/organization-admin/{org.slug}/staff", {"user_id": str(newcomer.pk)}
        )
        assert response.status_code == 201, response.content
        assert response.json()["user"]["id"] == str(newcomer.pk)
        assert response.json()["permissions"] == {
            str(k): v for k, v in STAFF_DEFAULT_PERMISSIONS.items()
        }
        assert OrganizationStaff.objects.filter(organization=org, user=newcomer).exists()

    def test_given_permissions_override_the_defaults(self, api: Any, org: Organization) -> None:
        newcomer = make_user()
        body = {
            "user_id": str(newcomer.pk),
            "permissions": {"manage_members": True, "edit_event": False},
        }
        response = api(org.owner).post(f"/organization-admin/{org.slug}/staff", body)
        assert response.status_code == 201
        staff = OrganizationStaff.objects.get(organization=org, user=newcomer)
        assert staff.has_permission("manage_members") is True
        assert staff.has_permission("edit_event") is False
        assert staff.has_permission("manage_tickets") is True

    def test_added_permission_takes_effect_on_admin_routes(
        self, api: Any, org: Organization
    ) -> None:
        newcomer = make_user()
        assert api(newcomer).get(f"/organization-admin/{org.slug}/blacklist").status_code == 403
        body = {"user_id": str(newcomer.pk), "permissions": {"manage_members": True}}
        api(org.owner).post(f"/organization-admin/{org.slug}/staff", body)
        assert api(newcomer).get(f"/organization-admin/{org.slug}/blacklist").status_code == 200

    @pytest.mark.parametrize(
        ("permissions", "message"),
        [
            ({"fly": True}, "Unknown permission: fly."),
            ({"manage_members": True, "sudo": False}, "Unknown permission: sudo."),
        ],
    )
    def test_unknown_permission_keys_are_400_and_nothing_is_written(
        self, api: Any, org: Organization, permissions: dict[str, bool], message: str
    ) -> None:
        body = {"user_id": str(make_user().pk), "permissions": permissions}
        before = snapshot()
        response = api(org.owner).post(f"/organization-admin/{org.slug}/staff", body)
        assert response.status_code == 400
        assert response.json()["errors"] == {"permissions": [message]}
        assert snapshot() == before

    def test_non_boolean_permission_values_are_422(self, api: Any, org: Organization) -> None:
        body = {"user_id": str(make_user().pk), "permissions": {"manage_members": "yes"}}
        response = api(org.owner).post(f"/organization-admin/{org.slug}/staff", body)
        assert response.status_code == 422
        assert not OrganizationStaff.objects.filter(organization=org).exists()

    def test_the_owner_cannot_be_added_as_staff(self, api: Any, org: Organization) -> None:
        response = api(org.owner).post(
            f"/organization-admin/{org.slug}/staff", {"user_id": str(org.owner.pk)}
        )
        assert response.status_code == 400
        assert "user_id" in response.json()["errors"]
        assert not OrganizationStaff.objects.filter(organization=org).exists()

    def test_unknown_user_id_is_a_field_error(self, api: Any, org: Organization) -> None:
        body = {"user_id": "00000000-0000-4000-8000-000000000000"}
        response = api(org.owner).post(f"/organization-admin/{org.slug}/staff", body)
        assert response.status_code == 400
        assert response.json()["errors"] == {"user_id": ["No user with this id."]}

    def test_adding_the_same_person_twice_is_409(self, api: Any, org: Organization) -> None:
        staff = make_staff(org)
        response = api(org.owner).post(
            f"/organization-admin/{org.slug}/staff", {"user_id": str(staff.pk)}
        )
        assert response.status_code == 409
        assert response.json()["code"] == "already_staff"
        assert OrganizationStaff.objects.filter(organization=org).count() == 1

    def test_patch_merges_the_sent_keys_into_the_map(self, api: Any, org: Organization) -> None:
        staff = make_staff(org, manage_members=True)
        url = f"/organization-admin/{org.slug}/staff/{staff.pk}"
        response = api(org.owner).patch(url, {"permissions": {"edit_event": False}})
        assert response.status_code == 200
        assert response.json()["permissions"]["edit_event"] is False
        assert response.json()["permissions"]["manage_members"] is True

    def test_patch_with_unknown_key_changes_nothing(self, api: Any, org: Organization) -> None:
        staff = make_staff(org)
        before = snapshot()
        url = f"/organization-admin/{org.slug}/staff/{staff.pk}"
        response = api(org.owner).patch(url, {"permissions": {"edit_event": False, "root": True}})
        assert response.status_code == 400
        assert snapshot() == before

    def test_patch_of_a_user_who_is_not_staff_is_404(self, api: Any, org: Organization) -> None:
        url = f"/organization-admin/{org.slug}/staff/{make_user().pk}"
        assert api(org.owner).patch(url, {"permissions": {}}).status_code == 404

    def test_delete_removes_the_staff_row_and_its_rights(self, api: Any, org: Organization) -> None:
        staff = make_staff(org)
        response = api(org.owner).delete(f"/organization-admin/{org.slug}/staff/{staff.pk}")
        assert response.status_code == 204
        assert not OrganizationStaff.objects.filter(organization=org).exists()
        assert api(staff).get(f"/organization-admin/{org.slug}/staff").status_code == 403

    def test_list_is_paginated(self, api: Any, org: Organization) -> None:
        staff = [make_staff(org) for _ in range(3)]
        response = api(staff[0]).get(f"/organization-admin/{org.slug}/staff", page_size=2)
        assert response.status_code == 200
        body = response.json()
        assert body["count"] == 3
        assert len(body["results"]) == 2
        assert body["next"] is not None
        assert body["results"][0]["user"]["email"] == staff[0].email


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
