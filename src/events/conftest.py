"""Fixtures every events test may use, in `events/tests/` and `events/series/tests/`:
`dispatched` (waitlist dispatches recorded instead of sent) and `org` (a public
organisation with its own owner).

Autouse for every events test: `eager_join_flag_cleared_after_race` (threads racing
through eager Celery tasks can leave Celery's "a task is running" flag set; see
`threaded_eager`)."""

import pytest

from events.core.tests.event_admin_support import dispatched
from events.core.tests.factories import make_org
from events.core.tests.threaded_eager import eager_join_flag_cleared_after_race
from events.models import Organization

__all__ = ["dispatched", "eager_join_flag_cleared_after_race"]  # fixtures, imported for pytest


@pytest.fixture
def org(db: None) -> Organization:
    return make_org()
