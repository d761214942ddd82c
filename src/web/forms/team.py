"""Forms of the team page and the organisation settings page.

The team page names every `StaffPermission` in words (`PERMISSION_LABELS`), in the
order of the enum, and offers one checkbox per permission per person: a box left
unticked is sent as "off", so one "Save" stores the whole map the person sees. The rules
(the owner is never staff, a person is staff once) stay in `staff_service`; the settings
rules (a unique name, a known zone) in `organization_service`.
"""

from typing import TYPE_CHECKING, Any

from django import forms
from django.utils.translation import gettext_lazy as _

from events.models import OrganizationStaff, StaffPermission
from web.forms.manage import OrganizationForm
from web.forms.zones import zone_field

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise as StrPromise

PERMISSION_LABELS: dict[str, "StrPromise"] = {
    StaffPermission.VIEW_ORGANIZATION_DETAILS: _("See the organisation's events, series and team"),
    StaffPermission.EDIT_EVENT: _("Edit events"),
    StaffPermission.OPEN_EVENT: _("Open events"),
    StaffPermission.CLOSE_EVENT: _("Close and cancel events"),
    StaffPermission.MANAGE_EVENT: _("Manage RSVPs and waitlist offers"),
    StaffPermission.MANAGE_TICKETS: _("Manage tickets and payments"),
    StaffPermission.CHECK_IN_ATTENDEES: _("Check in attendees"),
    StaffPermission.INVITE_TO_EVENT: _("Invite people and run the waitlist"),
    StaffPermission.CREATE_EVENT: _("Create events"),
    StaffPermission.CREATE_EVENT_SERIES: _("Create series"),
    StaffPermission.EDIT_EVENT_SERIES: _("Edit series"),
    StaffPermission.DELETE_EVENT_SERIES: _("Delete series"),
    StaffPermission.DELETE_EVENT: _("Delete events"),
    StaffPermission.EDIT_ORGANIZATION: _("Edit the organisation's settings"),
    StaffPermission.MANAGE_MEMBERS: _("Manage members and the blacklist"),
}


class AddStaffForm(forms.Form):
    email = forms.EmailField(label=_("Email"), max_length=254)


class StaffPermissionsForm(forms.Form):
    """One person's permission map as checkboxes; the prefix keeps ids unique on the page."""

    def __init__(self, *args: Any, staff: OrganizationStaff, **kwargs: Any) -> None:
        kwargs.setdefault("prefix", f"staff-{staff.user_id}")
        super().__init__(*args, **kwargs)
        self.staff = staff
        for permission in StaffPermission.values:
            self.fields[permission] = forms.BooleanField(
                label=PERMISSION_LABELS[permission],
                required=False,
                initial=staff.has_permission(permission),
            )

    def permissions(self) -> dict[str, bool]:
        """Every permission on or off, as `staff_service.update_staff` takes it."""
        return {name: bool(self.cleaned_data.get(name)) for name in StaffPermission.values}


def permission_words(permissions: frozenset[str] | set[str]) -> list["StrPromise"]:
    """The held permissions in words, in the enum's order (a read-only viewer's list)."""
    return [PERMISSION_LABELS[name] for name in StaffPermission.values if name in permissions]


class OrganizationSettingsForm(OrganizationForm):
    contact_email = forms.EmailField(
        label=_("Contact e-mail"),
        required=False,
        help_text=_("Where attendees can reach the organisers."),
    )
    timezone = zone_field(
        _("Default time zone"), help_text=_("The event form starts in this zone.")
    )
    payment_instructions = forms.CharField(
        label=_("Payment instructions"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_(
            "Shown to buyers of offline tickets with the amount due and the payment reference."
        ),
    )

    logo = forms.FileField(
        label=_("Logo"),
        required=False,
        widget=forms.FileInput(attrs={"accept": "image/jpeg,image/png,image/gif,image/webp"}),
        help_text=_("A JPEG, PNG, GIF or WebP picture up to 10 MB; Encore scales it down."),
    )
    remove_logo = forms.BooleanField(label=_("Remove the logo"), required=False)

    field_order = ["name", "description", "contact_email", "timezone", "payment_instructions"]

    def __init__(self, *args: Any, has_logo: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not has_logo:
            del self.fields["remove_logo"]

    def changes(self) -> dict[str, Any]:
        """The fields as `organization_service.update_organization` takes them."""
        return {name: self.cleaned_data[name] for name in self.field_order}
