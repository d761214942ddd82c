"""The scenario registry: a benchmark is a function decorated with `@scenario(...)`.

The function builds its data (once) and returns the call to measure. It runs inside
the harness's outer transaction, which is rolled back after the scenario, so scenarios
never see each other's data and the bench database stays empty between them.
"""

from collections.abc import Callable
from dataclasses import dataclass

Measured = Callable[[], object]


class ScenarioUnavailable(Exception):
    """The code a scenario measures does not exist (yet); the row says why."""


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    data: str
    build: Callable[[], Measured]
    # How each run starts from the same state; shown in the table's method column.
    method: str = "savepoint rollback"


REGISTRY: dict[str, Scenario] = {}


def scenario(
    id: str, title: str, data: str
) -> Callable[[Callable[[], Measured]], Callable[[], Measured]]:
    """Register a builder under a quality.md row id such as "a1" (ids are unique)."""

    def register(build: Callable[[], Measured]) -> Callable[[], Measured]:
        if id in REGISTRY:
            raise ValueError(f"benchmark id {id!r} registered twice")
        REGISTRY[id] = Scenario(id=id, title=title, data=data, build=build)
        return build

    return register
