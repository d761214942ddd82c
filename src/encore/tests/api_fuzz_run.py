"""One schemathesis run of the API fuzz test (test_api_fuzz.py): the schema loaded from the
app with path ids and body references taken from the organiser's objects, every operation
driven through Django's full stack in-process, and the run's cases, statuses and failures
reported and checked against the documented contract.
"""

import random
import traceback
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import hypothesis
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.db import transaction
from ninja_jwt.tokens import RefreshToken
from schemathesis.checks import load_all_checks, not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Err
from schemathesis.pytest.lazy import get_all_tests
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.models import User
from encore.tests.api_fuzz_world import World

#: Fuzzing-phase cases per operation and run; the examples and coverage phases add their
#: own (deterministic) cases on top.
MAX_EXAMPLES = 25
#: The anonymous run's: most operations answer an anonymous caller at the auth check, so
#: random bodies past the coverage phase's systematic ones reach little code there, and the
#: run's minutes are CI's budget (docs/bench.md).
ANONYMOUS_MAX_EXAMPLES = 8

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def _config(max_examples: int) -> dict[str, Any]:
    return {
        "generation": {"mode": "all", "max-examples": max_examples},
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": True},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": False},
        },
    }


SETTINGS = hypothesis.settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(hypothesis.HealthCheck),
    print_blob=False,
)


# -- the run -----------------------------------------------------------------------------------
@dataclass
class Run:
    cases: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    by_operation: dict[str, Counter[int]] = field(default_factory=dict)
    phases: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)


def load_schema(world: World, max_examples: int = MAX_EXAMPLES) -> Any:
    config = schemathesis.Config.from_dict(_config(max_examples))
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", WSGIHandler(), config=config)

    rng = random.Random(0)  # the run is single-threaded, so the draws are reproducible

    @schema.hook("map_case")
    def real_objects(context: Any, case: Any) -> Any:
        """Three cases in four, in every phase, name seeded objects: the path takes the ids
        of one group (an event and its own sub-objects), and a body's `user_id`,
        `waitlist_entry_id` or `tier_id` a seeded row. Malformed ids stay as generated."""
        if rng.random() < 0.25:
            return case
        path_parameters = case.path_parameters
        if isinstance(path_parameters, dict):
            groups = [g for g in world.candidates(case.path) if set(g) & set(path_parameters)]
            if groups:
                for name, value in rng.choice(groups).items():
                    if name in path_parameters and _well_formed(name, path_parameters[name]):
                        path_parameters[name] = str(value)
        if isinstance(case.body, dict):
            for name, choices in world.body_ids.items():
                if name in case.body and _well_formed(name, case.body[name]):
                    case.body[name] = str(rng.choice(choices))
        return case

    return schema


def _well_formed(name: str, value: Any) -> bool:
    """A drawn value worth replacing: a valid UUID for an `*_id`, any string for a slug."""
    if not isinstance(value, str):
        return False
    if not name.endswith("_id"):
        return True
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def fuzz(
    world: World,
    headers: dict[str, str],
    only: str | None = None,
    max_examples: int = MAX_EXAMPLES,
) -> Run:
    """Every operation of the schema (or the one with operation id `only`), each case in
    a savepoint rolled back and released afterwards."""
    load_all_checks()
    schema = load_schema(world, max_examples)
    settings = hypothesis.settings(SETTINGS, max_examples=max_examples)
    if only is not None:
        schema = schema.include(operation_id=only)
    run = Run()

    def test(case: Any) -> None:
        run.cases[case.operation.label] += 1
        run.phases[str(case.meta.phase.name) if case.meta else "explicit"] += 1
        savepoint = transaction.savepoint()
        try:
            response = case.call(headers=headers)
            run.statuses[response.status_code] += 1
            run.by_operation.setdefault(case.operation.label, Counter())[response.status_code] += 1
            case.validate_response(response, checks=CHECKS, headers=headers)
        finally:
            # ROLLBACK TO keeps the savepoint open: released too, or every case would nest
            # one level deeper and the test's transaction would keep a lock per level (the
            # server's lock table is shared by every test process of a parallel run).
            transaction.savepoint_rollback(savepoint)
            transaction.savepoint_commit(savepoint)

    for result in get_all_tests(schema=schema, test_func=test, settings=settings, given_kwargs={}):
        if isinstance(result, Err):
            run.failures.append(f"=== schema error\n{result.err()}")
            continue
        operation, hypothesis_test = result.ok()
        try:
            hypothesis_test()
        except (Exception, FailureGroup) as exc:  # collect every operation's, report at the end
            run.failures.append(f"=== {operation.label}\n{describe(exc)}")
    return run


def describe(exc: BaseException) -> str:
    """A check's failure as schemathesis words it; any other error with its traceback."""
    if isinstance(exc, AssertionError | FailureGroup):
        return str(exc)
    return "".join(traceback.format_exception(exc))


def operations_in(schema_json: dict[str, Any]) -> set[str]:
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    return {
        f"{method.upper()} {path}"
        for path, item in schema_json["paths"].items()
        for method in item
        if method in methods
    }


def _succeeded(counts: Counter[int]) -> bool:
    return any(200 <= status < 300 for status in counts)


def report(run: Run) -> str:
    """Statuses per operation and cases per phase (shown with `-s` or on a failure)."""
    lines = [f"{label}: {dict(sorted(c.items()))}" for label, c in sorted(run.by_operation.items())]
    return "\n".join([*lines, f"cases per phase: {dict(run.phases)}"])


def assert_clean(run: Run, api_json: dict[str, Any]) -> None:
    expected = operations_in(api_json)
    assert expected, "the schema lists no operations"
    assert set(run.cases) >= expected, f"never exercised: {sorted(expected - set(run.cases))}"
    assert run.failures == [], "\n\n".join(run.failures)
    assert not [s for s in run.statuses if s >= 500], run.statuses


def bearer(user: User) -> str:
    token = RefreshToken.for_user(user)  # type: ignore[misc]
    return f"Bearer {token.access_token}"
