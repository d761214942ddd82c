"""A service's refusal of a form, shown next to the field it is about."""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from common.errors import EncoreError
from web.forms.series import RULE_FIELD_OF

#: A service or model field name → the page field (the rest go to the form's top).
PAGE_FIELD_OF = {
    **RULE_FIELD_OF,
    "name": "name",
    "end": "duration",
    "start": "starts_on",
    "from": "starts_on",
    "template.name": "name",
    "template.description": "description",
    "duration": "duration",
    "stale": "stale",
}


def add_service_errors(form: forms.Form, exc: Exception) -> None:
    for name, messages in _errors_of(exc).items():
        field = PAGE_FIELD_OF.get(name.removeprefix("recurrence."))
        target = field if field in form.fields else None
        for message in messages:
            form.add_error(target, gettext(str(message)))


def _errors_of(exc: Exception) -> dict[str, list[Any]]:
    if isinstance(exc, ValidationError):
        if hasattr(exc, "error_dict"):
            return {
                name: [m for e in errors for m in e.messages]
                for name, errors in exc.error_dict.items()
            }
        return {"__all__": exc.messages}
    if isinstance(exc, EncoreError):
        errors = exc.extra.get("errors")
        if isinstance(errors, dict) and errors:
            return {str(k): list(v) for k, v in errors.items()}
        return {"__all__": [exc.detail]}
    return {"__all__": [str(exc)]}
