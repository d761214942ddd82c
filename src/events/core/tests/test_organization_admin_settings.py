"""`/organization-admin/{slug}`: changing the organisation's settings."""

from typing import Any

import pytest

from accounts.models import User
from events.core.tests.factories import make_org, make_staff
from events.core.tests.org_admin_matrix import snapshot
from events.models import Organization


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
