"""For tests whose threads run eager Celery tasks at the same time (the race tests).

Each racer's commit sends notifications, and with `task_always_eager` every delivery is
an eager task. Celery marks "a task is running" in one process-wide flag while an eager
task runs (`denied_join_result`) and puts back the value it found when the task ends;
tasks overlapping on several threads can put the values back in the wrong order and
leave the flag set, after which every later `AsyncResult.get()` in the test process
refuses with "Never call result.get() within a task!". Import the fixture into the
racing module (it is autouse there) to clear the flag once the race is over.
"""

from collections.abc import Iterator

import pytest
from celery._state import _set_task_join_will_block  # type: ignore[attr-defined]  # not in celery-types


@pytest.fixture(autouse=True)
def eager_join_flag_cleared_after_race() -> Iterator[None]:
    yield
    _set_task_join_will_block(False)
