"""`/me/settings`: profile and notification preferences, the data export, account deletion.

- Save: one form; the profile goes through `accounts.service.profile.update_profile`
  (`PATCH /api/me`), the grid through `notifications.service.preferences.
  update_preferences` (`PATCH /api/notification-preferences`). A refusal of either shows
  next to its field and the page is not redirected.
- Download my data: `events.core.selectors.personal_data` as a JSON attachment.
- Delete my account: the password again (counted by the log-in limits, as a log-in), then
  `accounts.service.user_deletion.delete_user`, the path the Django admin takes (events'
  departure receivers release every seat, offer and queue place first); a refusal
  (owned organisation, paid ticket) is shown and nothing changes.
"""

import json

from django.contrib import messages
from django.contrib.auth import logout
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from accounts.errors import UserDeletionRefused
from accounts.models import User
from accounts.service import profile, user_deletion
from accounts.service.login_limits import authenticate
from common.errors import InvalidInput, Throttled
from events.core.errors import HasPaidTickets, OwnsOrganizations
from events.core.selectors.personal_data import personal_data
from notifications.models import NotificationPreference
from notifications.service import preferences
from web.forms.me import DeleteAccountForm, SettingsForm
from web.views.access import signed_in


@require_http_methods(["GET", "POST"])
@signed_in
def settings_page(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    preference = preferences.get_preferences(user)
    initial = SettingsForm.initial_for(user, preference)
    if request.method != "POST":
        return _render(request, SettingsForm(initial=initial))
    form = SettingsForm(request.POST, initial=initial)
    if form.is_valid() and _save(form, user, preference):
        messages.success(request, _("Your settings are saved."))
        return redirect("/me/settings")
    return _render(request, form, status=400)


def _save(form: SettingsForm, user: User, preference: NotificationPreference) -> bool:
    """Both changes, each through its service, together or not at all; False (the errors
    on the form) on a refusal."""
    try:
        with transaction.atomic():
            profile.update_profile(user, form.profile_changes(user))
            preferences.update_preferences(user, form.preference_changes(preference))
    except ValidationError as error:
        form.add_service_errors(error.message_dict)
    except InvalidInput as error:
        form.add_service_errors((error.extra or {}).get("errors", {}))
    else:
        return True
    user.refresh_from_db()  # the page is rendered for what is stored
    return False


def _render(request: HttpRequest, form: SettingsForm, status: int = 200) -> HttpResponse:
    return render(request, "web/me/settings.html", {"form": form}, status=status)


@require_GET
@signed_in
def export_data(request: HttpRequest) -> HttpResponse:
    data = personal_data(request.user)  # type: ignore[arg-type]
    response = HttpResponse(
        json.dumps(data, indent=2, ensure_ascii=False), content_type="application/json"
    )
    day = timezone.now().date().isoformat()
    response["Content-Disposition"] = f'attachment; filename="encore-my-data-{day}.json"'
    response["Cache-Control"] = "private, no-store"  # personal data: no copy in any cache
    return response


@require_http_methods(["GET", "POST"])
@signed_in
def delete_account(request: HttpRequest) -> HttpResponse:
    user: User = request.user  # type: ignore[assignment]
    form = DeleteAccountForm(request.POST or None)
    if request.method != "POST":
        return _render_delete(request, form)
    if not form.is_valid():
        return _render_delete(request, form, status=400)
    try:
        confirmed = authenticate(request, email=user.email, password=form.cleaned_data["password"])
    except Throttled as refusal:
        form.add_error(None, str(refusal.detail))
        response = _render_delete(request, form, status=429)
        response["Retry-After"] = str(refusal.retry_after_seconds)
        return response
    if confirmed is None or confirmed.pk != user.pk:
        form.add_error("password", _("That is not your password."))
        return _render_delete(request, form, status=400)
    try:
        user_deletion.delete_user(user)
    except UserDeletionRefused as refusal:
        form.add_error(None, refusal_text(refusal))
        return _render_delete(request, form, status=409)
    logout(request)
    messages.success(request, _("Your account has been deleted."))
    return redirect("/")


def refusal_text(refusal: UserDeletionRefused) -> str:
    """The refusal in the person's words (the service's own text addresses the operator)."""
    if isinstance(refusal, OwnsOrganizations):
        return _(
            "You own an organisation. Give it another owner or delete it first, "
            "then delete your account."
        )
    if isinstance(refusal, HasPaidTickets):
        return _(
            "You hold paid tickets for events that are not over yet. Ask the organiser "
            "for a refund or to cancel them first, then delete your account."
        )
    return str(refusal.detail)


def _render_delete(
    request: HttpRequest, form: DeleteAccountForm, status: int = 200
) -> HttpResponse:
    return render(request, "web/me/delete_account.html", {"form": form}, status=status)
