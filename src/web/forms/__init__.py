"""The account forms: plain Django forms whose labels are the accessible names of ui.md.

They only validate the shape of the input; the rules (password strength, address taken,
log-in limits) stay in the accounts services, which the views call. The `autocomplete`
hints let password managers and phones fill the right field.
"""

from django import forms


def _email() -> forms.EmailField:
    return forms.EmailField(label="Email", widget=forms.EmailInput(attrs={"autocomplete": "email"}))


def _password(autocomplete: str) -> forms.CharField:
    return forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}),
    )


class LoginForm(forms.Form):
    email = _email()
    password = _password("current-password")


class SignupForm(forms.Form):
    name = forms.CharField(
        label="Name", max_length=150, widget=forms.TextInput(attrs={"autocomplete": "name"})
    )
    email = _email()
    password = _password("new-password")
