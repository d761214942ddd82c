"""Helpers shared by the /auth test modules (test_auth_*.py): an anonymous client, a strong
password, logging in for a token pair, and the cache emptied around every test (limits and
the registration notice interval live there).
"""

import pytest
from django.core.cache import cache

from accounts.tests.factories import PASSWORD

STRONG = "a-long-unusual-passphrase"


@pytest.fixture
def anon(api):
    return api(None)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Limits and the registration notice interval live in the cache: start each test empty."""
    cache.clear()
    yield
    cache.clear()


def login(anon, email, password=PASSWORD):
    return anon.post("/auth/token/pair", {"email": email, "password": password})
