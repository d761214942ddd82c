"""Fixtures every events test may use: `dispatched` (waitlist dispatches recorded instead
of sent) and `org` (a public organisation with its own owner)."""

import pytest

from events.models import Organization
from events.tests.event_admin_support import dispatched
from events.tests.factories import make_org

__all__ = ["dispatched"]  # the fixture, imported for pytest


@pytest.fixture
def org(db: None) -> Organization:
    return make_org()
