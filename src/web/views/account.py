"""Session log-in, log-out and sign-up pages (JWT stays for the API; one account for both).

Log-in goes through `accounts.service.login_limits.authenticate`, so the page counts
failures against the same per-account and per-client limits as the API and the admin.
Sign-up goes through `register_user`: for a taken address it writes nothing and mails the
owner (ADR 0011); a new account gets a link that signs it in (`signup_link`, ADR 0038).
Both see the same "check your e-mail" page, so the page tells no one which addresses
have an account; the link's page signs the new account in and goes on to `next`.
"""

from dataclasses import dataclass

from django.contrib.auth import login, logout
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.functional import Promise
from django.utils.translation import get_language, gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from accounts.service import signup_link
from accounts.service.login_limits import authenticate
from accounts.service.registration import register_user
from common.errors import Throttled
from web.forms import LoginForm, SignupForm
from web.views.navigation import next_url

StrOrPromise = str | Promise

BAD_CREDENTIALS = gettext_lazy("The e-mail address or the password is not right.")


@dataclass(frozen=True)
class AccountPage:
    """What tells the two account pages apart; the title is also the button's name."""

    title: StrOrPromise
    action: str
    other_question: StrOrPromise
    other_action: str
    other_link: StrOrPromise


LOGIN = AccountPage(
    gettext_lazy("Log in"),
    "/login",
    gettext_lazy("No account yet?"),
    "/signup",
    gettext_lazy("Create one"),
)
SIGNUP = AccountPage(
    gettext_lazy("Sign up"),
    "/signup",
    gettext_lazy("Already have an account?"),
    "/login",
    gettext_lazy("Log in to your account"),
)


@require_http_methods(["GET", "POST"])
def login_page(request: HttpRequest) -> HttpResponse:
    form = LoginForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            user = authenticate(
                request, email=form.cleaned_data["email"], password=form.cleaned_data["password"]
            )
        except Throttled as refusal:
            form.add_error(None, str(refusal.detail))
            response = _account_page(request, LOGIN, form, status=429)
            response["Retry-After"] = str(refusal.retry_after_seconds)
            return response
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(next_url(request))
        form.add_error(None, BAD_CREDENTIALS)
        status = 400
    elif request.method == "POST":
        status = 400
    return _account_page(request, LOGIN, form, status=status)


@require_POST
def logout_page(request: HttpRequest) -> HttpResponse:
    logout(request)
    return redirect("/")


@require_http_methods(["GET", "POST"])
def signup_page(request: HttpRequest) -> HttpResponse:
    """The account takes the browser's zone (sent by zones.js) and the page's language."""
    form = SignupForm(request.POST or None, initial={"language": get_language()})
    if request.method != "POST":
        return _account_page(request, SIGNUP, form)
    if form.is_valid():
        try:
            user = register_user(
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password"],
                first_name=form.cleaned_data["name"],
                timezone=form.cleaned_data["timezone"],
                language=form.cleaned_data["language"],
            )
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                form.add_error(field if field in form.fields else None, messages)
        else:
            if not user._state.adding:  # a new account (a taken address wrote nothing)
                signup_link.request_signup_link(user, next_url(request))
            context = {"email": user.email}
            return render(request, "web/signup_check_mail.html", context, status=200)
    return _account_page(request, SIGNUP, form, status=400)


@require_http_methods(["GET", "POST"])
def signup_finish_page(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """The e-mailed link's page: a button signs the account in (a GET never does, so a
    mail scanner that opens the link does not use it up)."""
    user = signup_link.user_for_link(uidb64, token)
    if user is None:
        return render(request, "web/signup_finish_invalid.html", status=400)
    if request.method == "POST":
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(next_url(request))
    context = {"account": user, "next": next_url(request)}
    return render(request, "web/signup_finish.html", context)


def _account_page(
    request: HttpRequest, page: AccountPage, form: LoginForm | SignupForm, status: int = 200
) -> HttpResponse:
    context = {"page": page, "form": form, "next": next_url(request)}
    return render(request, "web/account_form.html", context, status=status)
