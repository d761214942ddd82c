"""Shared builders for the manage page tests."""

from typing import Any

from django.test import Client

from accounts.models import User


def signed_in_client(user: User) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def body(response: Any) -> str:
    return response.content.decode()
