"""`/organization-admin/{slug}/staff`: adding staff, changing their permissions, removing
them.
"""

from typing import Any

import pytest

from accounts.tests.factories import make_user
from events.core.models.organization import STAFF_DEFAULT_PERMISSIONS
from events.core.tests.factories import make_staff
from events.core.tests.org_admin_matrix import snapshot
from events.models import Organization, OrganizationStaff


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
