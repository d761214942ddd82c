import pytest
from django.apps import apps
from django.contrib import admin
from django.db.models import Model
from django.test import Client
from django.urls import reverse

from accounts.tests.factories import make_user
from events.core.tests.factories import make_event


def _project_models() -> list[type[Model]]:
    return [
        m for m in apps.get_models() if m._meta.app_label in {"accounts", "events", "notifications"}
    ]


def test_every_project_model_is_registered_in_the_admin() -> None:
    missing = [m.__name__ for m in _project_models() if not admin.site.is_registered(m)]
    assert missing == []


@pytest.mark.django_db
def test_operator_can_open_every_changelist() -> None:
    make_event()
    operator = make_user(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(operator)
    for model in _project_models():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url


@pytest.mark.django_db
def test_attendee_count_cannot_be_edited_in_the_admin() -> None:
    event = make_event()
    operator = make_user(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(operator)
    page = client.get(reverse("admin:events_event_change", args=[event.pk]))
    assert page.status_code == 200
    assert b'name="attendee_count"' not in page.content
