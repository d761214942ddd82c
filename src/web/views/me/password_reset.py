"""`/password-reset` and the page its e-mailed link opens (`common.links.password_reset_url`).

The request goes through `accounts.service.password_reset.request_password_reset`, as
`POST /api/auth/password-reset`, under the same write limit as every page POST
(`web.middleware.PageWriteLimitMiddleware`: the API's counter; so is setting the
password): every address gets the same redirect to the same "check your e-mail" page,
so the page tells no one which addresses are registered. The link's page sets the new
password through `confirm_password_reset` (validators, sessions ended, failed log-ins
forgotten; every session of the account ends, as its session hash changes with the
password); a bad or used link says so, without asking for a password, and changes nothing.
"""

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from accounts.errors import InvalidResetToken
from accounts.service import password_reset
from web.forms.me import PasswordResetRequestForm, SetPasswordForm

SENT_PATH = "/password-reset/sent"
DONE_PATH = "/password-reset/done"


@require_http_methods(["GET", "POST"])
def request_page(request: HttpRequest) -> HttpResponse:
    form = PasswordResetRequestForm(request.POST or None)
    if request.method != "POST":
        return _render(request, "web/me/password_reset.html", {"form": form})
    if not form.is_valid():
        return _render(request, "web/me/password_reset.html", {"form": form}, status=400)
    password_reset.request_password_reset(form.cleaned_data["email"])
    return redirect(SENT_PATH)


@require_GET
def sent_page(request: HttpRequest) -> HttpResponse:
    return _render(request, "web/me/password_reset_sent.html", {})


@require_http_methods(["GET", "POST"])
def confirm_page(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    form = SetPasswordForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            password_reset.confirm_password_reset(
                uid=uidb64, token=token, password=form.cleaned_data["password"]
            )
        except InvalidResetToken:
            return _invalid(request)
        except ValidationError as error:
            for message in error.message_dict.get("password", error.messages):
                form.add_error("password", message)
        else:
            return redirect(DONE_PATH)
        return _render(request, "web/me/password_reset_confirm.html", {"form": form}, status=400)
    if not password_reset.reset_link_is_valid(uid=uidb64, token=token):
        return _invalid(request)
    status = 400 if request.method == "POST" else 200
    return _render(request, "web/me/password_reset_confirm.html", {"form": form}, status=status)


@require_GET
def done_page(request: HttpRequest) -> HttpResponse:
    return _render(request, "web/me/password_reset_done.html", {})


def _invalid(request: HttpRequest) -> HttpResponse:
    return _render(request, "web/me/password_reset_invalid.html", {}, status=400)


def _render(
    request: HttpRequest, template: str, context: dict[str, object], status: int = 200
) -> HttpResponse:
    return render(request, template, context, status=status)
