"""`/organization-admin/{slug}`: the permission matrix of every route (who may call it, and
that a refusal changes nothing).
"""

from typing import Any

import pytest

from events.core.tests.org_admin_matrix import AdminRoute, expect_case, matrix_params
from events.models import StaffPermission

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
