"""The account forms: plain Django forms whose labels are the accessible names of docs/spec/ui.md.

They only validate the shape of the input; the rules (password strength, address taken,
log-in limits) stay in the accounts services, which the views call. The `autocomplete`
hints let password managers and phones fill the right field.
"""

from django import forms
from django.utils.translation import gettext_lazy


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
