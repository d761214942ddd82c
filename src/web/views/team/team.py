"""`/manage/<org_slug>/team`: the owner and the staff with their permissions in words.

Who may do what is the admin API's staff routes' rule, not a rule of this page: the list
needs `view_organization_details` (`GET /organization-admin/{slug}/staff`); adding,
saving and removing are the owner's alone (`access_owner`, like the API's POST, PATCH and
DELETE), so staff see the team read-only and get 403 on every write, whatever their
map holds (`manage_members` is about members, not staff). The owner holds every
permission without a staff row, so the owner can be neither unticked nor removed.

"Add staff member" takes an e-mail address. The organiser is trusted with the answer
for an unknown address, so the page says plainly that no Encore account uses it and
that the person should sign up first, instead of the everyone-alike answer of `/signup`
(which strangers can ask). The new staff member gets an e-mail from `staff_service`.
"""

import uuid
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from accounts.selectors import active_user_by_email
from common.errors import EncoreError
from events.core.selectors import organization as org_selectors
from events.core.selectors.access import access_organization_admin, access_owner
from events.core.services import staff_service
from events.models import Organization, StaffPermission
from web.forms.team import AddStaffForm, StaffPermissionsForm, permission_words
from web.views.access import signed_in
from web.views.confirm import confirm_first

#: A staff list is short; this bounds the page's work if it is not.
TEAM_CAP = 200


@require_GET
@signed_in
def team_page(request: HttpRequest, org_slug: str) -> HttpResponse:
    organization = access_organization_admin(
        request.user, org_slug, StaffPermission.VIEW_ORGANIZATION_DETAILS
    )
    return _render(request, organization)


@require_POST
@signed_in
def add_staff(request: HttpRequest, org_slug: str) -> HttpResponse:
    organization = access_owner(request.user, org_slug)
    form = AddStaffForm(request.POST)
    if not form.is_valid():
        return _render(request, organization, add_form=form, status=400)
    user = active_user_by_email(form.cleaned_data["email"])
    if user is None:
        form.add_error(
            "email",
            gettext("No Encore account uses this address; ask them to sign up first."),
        )
        return _render(request, organization, add_form=form, status=400)
    try:
        staff_service.add_staff(organization, user=user)
    except EncoreError as error:
        if error.status_code not in (400, 409):
            raise
        form.add_error("email", _add_refusal(error))
        return _render(request, organization, add_form=form, status=error.status_code)
    messages.success(
        request,
        gettext("%(name)s is on the team now and was told by e-mail.")
        % {"name": user.display_name},
    )
    return redirect(f"/manage/{organization.slug}/team#person-{user.pk}")


@require_POST
@signed_in
def save_permissions(request: HttpRequest, org_slug: str, user_id: uuid.UUID) -> HttpResponse:
    organization = access_owner(request.user, org_slug)
    staff = org_selectors.get_staff_row(organization, user_id)
    form = StaffPermissionsForm(request.POST, staff=staff)
    form.is_valid()  # checkboxes: every input is valid, a missing one is "off"
    staff_service.update_staff(staff, permissions=form.permissions())
    messages.success(
        request,
        gettext("The permissions of %(name)s were saved.") % {"name": staff.user.display_name},
    )
    return redirect(f"/manage/{organization.slug}/team#person-{user_id}")


@require_POST
@signed_in
def remove_staff(request: HttpRequest, org_slug: str, user_id: uuid.UUID) -> HttpResponse:
    organization = access_owner(request.user, org_slug)
    staff = org_selectors.get_staff_row(organization, user_id)
    name = staff.user.display_name
    asked = confirm_first(
        request,
        action=gettext("Remove"),
        consequence=gettext("%(name)s will lose access to the events of %(organization)s.")
        % {"name": name, "organization": organization.name},
        keep_url=f"/manage/{organization.slug}/team#person-{user_id}",
    )
    if asked is not None:
        return asked
    staff_service.remove_staff(staff)
    messages.success(request, gettext("%(name)s was removed from the team.") % {"name": name})
    return redirect(f"/manage/{organization.slug}/team")


def _render(
    request: HttpRequest,
    organization: Organization,
    *,
    add_form: AddStaffForm | None = None,
    status: int = 200,
) -> HttpResponse:
    is_owner = organization.owner_id == request.user.pk
    staff_rows = list(org_selectors.list_staff(organization)[:TEAM_CAP])
    people: list[dict[str, Any]] = [
        {
            "staff": staff,
            "form": StaffPermissionsForm(staff=staff) if is_owner else None,
            "words": permission_words(
                {p for p in StaffPermission.values if staff.has_permission(p)}
            ),
        }
        for staff in staff_rows
    ]
    context = {
        "organization": organization,
        "owner": organization.owner,
        "people": people,
        "is_owner": is_owner,
        "add_form": add_form or AddStaffForm(),
    }
    return render(request, "web/team/team.html", context, status=status)


def _add_refusal(error: EncoreError) -> str:
    if error.status_code == 409:
        return gettext("This person is already on the team.")
    return gettext("The owner holds every permission already and cannot be staff.")
