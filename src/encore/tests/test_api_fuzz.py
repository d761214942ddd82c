"""The API keeps its OpenAPI contract under fuzzing: no 5xx, bodies and statuses as documented.

Schemathesis reads `/api/openapi.json` from the app and drives every operation through
Django's full stack in-process (`WSGIHandler`: every middleware, the URL resolver, the
error handlers), in its examples, coverage and fuzzing phases, positive and negative
data, once anonymously and once as an organiser who owns real objects: an organisation
with staff, members, a blacklist entry, a membership request and a venue; an RSVP event
with a waitlist holding queue entries, a live and a lapsed offer; a ticketed event with a
tier, paid and unpaid tickets; a recurring series with occurrences; notifications. Three
cases in four (in every phase) take their path ids and body references (`user_id`,
`waitlist_entry_id`, `tier_id`) from those objects, so the fuzzer reaches real rows as
well as missing and malformed ones. (The schema holds few examples, so the examples
phase adds only a handful of cases; the coverage phase is the systematic one.)

Checks: `not_a_server_error` (no 5xx), `status_code_conformance` (every status is
documented for its operation), `response_schema_conformance` and
`content_type_conformance`. Each case runs inside a savepoint that is rolled back, so
every case sees the same seeded objects (a fuzzed DELETE does not starve the rest).
Hypothesis is derandomised and the id rotation seeded: a run is reproducible.

It cannot pass vacuously: every operation of the served document must have been
exercised, the organiser must get a 2xx on three operations in four, and two self-tests
show that a route answering 500, or a body that breaks its documented schema, fails it.

Runs on the PostgreSQL run only (`postgres` marker). It takes minutes, not seconds
(timings in docs/bench.md, test runs); `MAX_EXAMPLES` and `ANONYMOUS_MAX_EXAMPLES` are
the knobs.
"""

import time
from typing import Any

import pytest

from accounts.models import User
from encore.api import api as encore_api
from encore.tests.api_fuzz_run import (
    ANONYMOUS_MAX_EXAMPLES,
    _succeeded,
    assert_clean,
    bearer,
    fuzz,
    report,
)
from encore.tests.api_fuzz_world import World, api_json, world
from notifications.service import inbox

__all__ = ["api_json", "world"]  # fixtures, imported for pytest


# The hang guard of the suite (300 s a test) is too tight for a fuzz run that shares two
# cores with two other test processes; it still stops a hung run.
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.long,
    pytest.mark.django_db,
    pytest.mark.timeout(900),
]


def test_every_operation_keeps_the_contract_for_anonymous_callers(
    world: World, api_json: dict[str, Any]
) -> None:
    started = time.monotonic()
    run = fuzz(world, headers={}, max_examples=ANONYMOUS_MAX_EXAMPLES)
    print(report(run))
    assert_clean(run, api_json)
    print(f"anonymous: {sum(run.cases.values())} cases in {time.monotonic() - started:.0f} s")


# The organiser's run is the longest test of the suite: a test process of its own, so
# the anonymous run and the rest of the file go to another one beside it.
@pytest.mark.xdist_group("api-fuzz-organiser")
def test_every_operation_keeps_the_contract_for_an_organiser(
    world: World, api_json: dict[str, Any]
) -> None:
    started = time.monotonic()
    token = bearer(world.organiser)
    run = fuzz(world, headers={"Authorization": token})
    print(report(run))
    assert_clean(run, api_json)
    # The organiser reached real objects: successes on admin routes, not only 401/404.
    succeeded = [label for label, counts in run.by_operation.items() if _succeeded(counts)]
    assert len(succeeded) >= 0.75 * len(run.by_operation), sorted(
        set(run.by_operation) - set(succeeded)
    )
    print(f"organiser: {sum(run.cases.values())} cases in {time.monotonic() - started:.0f} s")


# -- the run cannot pass vacuously -------------------------------------------------------------
def test_a_route_that_answers_500_fails_the_run(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(user: User) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(inbox, "unread_count", broken)
    token = bearer(world.organiser)
    run = fuzz(
        world,
        headers={"Authorization": token},
        only="notifications_unread_count",
    )
    assert list(run.cases) == ["GET /api/notifications/unread-count"]
    assert run.statuses[500] > 0
    assert len(run.failures) == 1
    assert "Server error" in run.failures[0]


def test_a_body_that_breaks_its_schema_fails_the_run(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The served document says the unread count is a string; the route answers a number."""
    real = encore_api.get_openapi_schema

    def tampered(**kwargs: Any) -> Any:
        schema = real(**kwargs)
        schema["components"]["schemas"]["CountSchema"]["properties"]["count"] = {"type": "string"}
        return schema

    monkeypatch.setattr(encore_api, "get_openapi_schema", tampered)
    token = bearer(world.organiser)
    run = fuzz(
        world,
        headers={"Authorization": token},
        only="notifications_unread_count",
    )
    succeeded = [label for label, counts in run.by_operation.items() if _succeeded(counts)]
    assert len(succeeded) >= 0.75 * len(run.by_operation), sorted(
        set(run.by_operation) - set(succeeded)
    )
    assert len(run.failures) == 1
    assert "Response violates schema" in run.failures[0]
