"""`/manage`, `/manage/organizations/new` and `/manage/<org_slug>`.

The list is `staff_organizations` (owner or staff); a new organisation goes through the
API's `organization_service.create_organization`; an organisation's page needs
`view_organization_details`, like the admin API's organisation reads.
"""

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods

from common.errors import Conflict, InvalidInput
from events.core.selectors import manage as manage_selectors
from events.core.selectors.access import access_organization_admin
from events.core.services import organization_service
from events.models import StaffPermission
from web.forms.manage import OrganizationForm, add_service_errors
from web.views.access import signed_in


@require_GET
@signed_in
def manage_home(request: HttpRequest) -> HttpResponse:
    organizations = manage_selectors.managed_organizations(request.user)
    return render(request, "web/manage/home.html", {"organizations": organizations})


@require_http_methods(["GET", "POST"])
@signed_in
def new_organization(request: HttpRequest) -> HttpResponse:
    form = OrganizationForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                organization = organization_service.create_organization(
                    owner=request.user,  # type: ignore[arg-type]
                    name=form.cleaned_data["name"],
                    timezone=form.cleaned_data["timezone"],
                    description=form.cleaned_data["description"],
                )
            except (ValidationError, InvalidInput) as error:
                add_service_errors(form, error)
            except Conflict as error:
                form.add_error("name", str(error.detail))
                status = 409
            else:
                return redirect(f"/manage/{organization.slug}")
    return render(request, "web/manage/organization_form.html", {"form": form}, status=status)


@require_GET
@signed_in
def organization_page(request: HttpRequest, org_slug: str) -> HttpResponse:
    organization = access_organization_admin(
        request.user, org_slug, StaffPermission.VIEW_ORGANIZATION_DETAILS
    )
    now = timezone.now()
    permissions = manage_selectors.permissions_of(request.user, organization)
    context = {
        "organization": organization,
        "upcoming": manage_selectors.upcoming_events(organization, now),
        "past": manage_selectors.past_events(organization, now),
        "series_list": manage_selectors.organization_series(organization),
        "may_create": StaffPermission.CREATE_EVENT in permissions,
        "may_edit_settings": StaffPermission.EDIT_ORGANIZATION in permissions,
    }
    return render(request, "web/manage/organization.html", context)
