"""The account forms: plain Django forms whose labels are the accessible names of docs/spec/ui.md.

They only validate the shape of the input; the rules (password strength, address taken,
log-in limits) stay in the accounts services, which the views call. The `autocomplete`
hints let password managers and phones fill the right field.
"""

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy

from common.timezones import is_valid_timezone


def _email() -> forms.EmailField:
    return forms.EmailField(
        label=gettext_lazy("Email"), widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )


def _password(autocomplete: str) -> forms.CharField:
    return forms.CharField(
        label=gettext_lazy("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}),
    )


class LoginForm(forms.Form):
    email = _email()
    password = _password("current-password")


class SignupForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=150,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    email = _email()
    password = _password("new-password")

    # Filled by web/static/web/zones.js from the browser; the language is the page's.
    timezone = forms.CharField(
        required=False, widget=forms.HiddenInput(attrs={"data-browser-zone": ""})
    )
    language = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_timezone(self) -> str:
        """The browser's zone when it names a place (browsers may send an old name such
        as Asia/Calcutta, which is still one), else the default."""
        zone = self.cleaned_data.get("timezone", "").strip()
        return zone if is_valid_timezone(zone) else DEFAULT_ZONE

    def clean_language(self) -> str:
        language = self.cleaned_data.get("language", "").strip()
        return language if language in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


DEFAULT_ZONE = "UTC"
