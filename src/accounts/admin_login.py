"""The Django admin's log-in under the same limits as the API's (accounts.service.login_limits).

Installed on `admin.site` by accounts/admin.py: the form authenticates through the limiter,
and a refused attempt answers 429 with Retry-After, the login page showing why. While the
account or the client is limited, the password is not checked at all.

The admin is for site staff only. Someone who runs an organisation (and typed the right
password) is told that, and pointed to the organiser pages at /manage, instead of Django's
"enter the correct email and password for a staff account", which reads as a wrong
password. They get no admin rights.
"""

from collections.abc import Callable
from typing import Any

from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy

from accounts.service import login_limits
from common.errors import Throttled

NOT_SITE_STAFF = gettext_lazy(
    "This sign-in is for Encore's site administrators. Organisers run their events, "
    "waitlists and series at /manage."
)


class LimitedAdminAuthenticationForm(AdminAuthenticationForm):
    throttled: Throttled | None = None

    def confirm_login_allowed(self, user: Any) -> None:
        if user.is_active and not user.is_staff:
            raise ValidationError(NOT_SITE_STAFF, code="not_site_staff")
        super().confirm_login_allowed(user)

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            if self.request is None:  # the admin's LoginView always passes it: fail closed
                raise self.get_invalid_login_error()
            try:
                self.user_cache = login_limits.authenticate(
                    self.request, email=username, password=password
                )
            except Throttled as refused:
                self.throttled = refused
                raise ValidationError(refused.detail, code="throttled") from refused
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


def limit_admin_login(site: AdminSite) -> None:
    """Use the limited form on `site`, and answer its refusals with 429 + Retry-After."""
    site.login_form = LimitedAdminAuthenticationForm
    django_login: Callable[..., HttpResponse] = site.login

    def login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        response = django_login(request, extra_context)
        context = getattr(response, "context_data", None) or {}
        refused = getattr(context.get("form"), "throttled", None)
        if isinstance(refused, Throttled):
            response.status_code = refused.status_code
            response["Retry-After"] = str(refused.retry_after_seconds)
        return response

    site.login = login  # type: ignore[method-assign]
