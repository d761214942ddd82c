"""`/manage/<org_slug>/settings`: the organisation's name, description, contact e-mail,
default time zone, the payment instructions buyers of offline tickets see, and its logo.

"Save" needs `edit_organization`, the permission of the admin API's
`PATCH /organization-admin/{slug}`. Staff without it still read the settings (the API
shows an organisation's details to staff with `view_organization_details`), so the
organiser navigation's "Settings" never leads to a refusal. "Save" goes through the same
`organization_service.update_organization` (with the logo: `update_settings`, all or
nothing); its refusals (a name another organisation has, an unknown zone, a file that
is not a picture) stand next to their field and change nothing.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from common.errors import InvalidInput
from events.core.selectors.access import access_organization_admin, has_org_permission
from events.core.services import organization_service
from events.models import Organization, StaffPermission
from web.forms.manage import add_service_errors
from web.forms.team import OrganizationSettingsForm
from web.views.access import signed_in


@require_http_methods(["GET", "POST"])
@signed_in
def settings_page(request: HttpRequest, org_slug: str) -> HttpResponse:
    reading = request.method == "GET"
    organization = access_organization_admin(
        request.user,
        org_slug,
        StaffPermission.VIEW_ORGANIZATION_DETAILS if reading else StaffPermission.EDIT_ORGANIZATION,
    )
    if reading and not has_org_permission(
        request.user, organization, StaffPermission.EDIT_ORGANIZATION
    ):
        return render(request, "web/team/settings_read.html", {"organization": organization})
    has_logo = organization.logo_id is not None
    if reading:
        form = OrganizationSettingsForm(initial=_initial(organization), has_logo=has_logo)
        return _render(request, organization, form)
    form = OrganizationSettingsForm(request.POST, request.FILES, has_logo=has_logo)
    if form.is_valid():
        try:
            organization_service.update_settings(
                organization,
                changes=form.changes(),
                logo=form.cleaned_data["logo"],
                remove_logo=bool(form.cleaned_data.get("remove_logo")),
            )
        except (ValidationError, InvalidInput) as error:
            add_service_errors(form, error)
        else:
            messages.success(request, gettext("The settings were saved."))
            return redirect(f"/manage/{organization.slug}/settings")
    return _render(request, organization, form, status=400)


def _initial(organization: Organization) -> dict[str, str]:
    return {
        "name": organization.name,
        "description": organization.description,
        "contact_email": organization.contact_email,
        "timezone": organization.timezone or "UTC",
        "payment_instructions": organization.payment_instructions,
    }


def _render(
    request: HttpRequest,
    organization: Organization,
    form: OrganizationSettingsForm,
    *,
    status: int = 200,
) -> HttpResponse:
    context = {"organization": organization, "form": form}
    return render(request, "web/team/settings.html", context, status=status)
