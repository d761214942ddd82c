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

Runs on the PostgreSQL run only (`postgres` marker). About 6,400 cases per run; on this
2-core machine, shared with other jobs, the module took 2.5-3.5 minutes (anonymous
50-70 s, organiser 70-130 s, self-tests 5 s); `MAX_EXAMPLES` is the knob.
"""

import random
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import hypothesis
import pytest
import schemathesis
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections, transaction
from django.utils import timezone
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
from accounts.tests.factories import make_user
from encore.api import api as encore_api
from events.models import (
    Blacklist,
    EventWaitList,
    Invitation,
    OrganizationMembershipRequest,
    Ticket,
    TicketTier,
    Venue,
    WaitlistOffer,
)
from events.tests.factories import (
    fill_with_rsvps,
    fill_with_tickets,
    make_event,
    make_member,
    make_org,
    make_staff,
    make_tier,
)
from events.tests.recurrence_builders import generate, make_rule, make_series
from events.tests.waitlist_builders import give_offer
from notifications.models import Notification, NotificationType
from notifications.service import inbox

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

#: Fuzzing-phase cases per operation and run; the examples and coverage phases add their
#: own (deterministic) cases on top.
MAX_EXAMPLES = 25

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

CONFIG = {
    "generation": {"mode": "all", "max-examples": MAX_EXAMPLES},
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


# -- the organiser's objects -------------------------------------------------------------------
@dataclass
class World:
    """An organiser and the ids the fuzzer may put into paths, grouped per path family."""

    organiser: User
    #: Path-parameter values that belong together (an event and its own sub-objects).
    event_admin: list[dict[str, Any]] = field(default_factory=list)
    organization_admin: list[dict[str, Any]] = field(default_factory=list)
    public: list[dict[str, Any]] = field(default_factory=list)
    #: Ids a request body may refer to, by field name.
    body_ids: dict[str, list[Any]] = field(default_factory=dict)

    def candidates(self, path: str) -> list[dict[str, Any]]:
        if path.startswith("/api/event-admin/"):
            return self.event_admin
        if path.startswith("/api/organization-admin/"):
            return self.organization_admin
        return self.public


def build_world() -> World:
    organiser = make_user(first_name="Olga")
    org = make_org(organiser, accept_membership_requests=True)
    venue = Venue.objects.create(organization=org, name="Hall", capacity=40)
    staffer = make_staff(org)
    member = make_member(org)
    applicant = make_user()
    request = OrganizationMembershipRequest.objects.create(organization=org, user=applicant)
    banned = Blacklist.objects.create(organization=org, email="banned@example.com")

    # An RSVP event, full, with a queue and one live offer.
    rsvp_event = make_event(
        org, max_attendees=3, waitlist_open=True, waitlist_time_window=timedelta(hours=2)
    )
    attendees = fill_with_rsvps(rsvp_event, 3)
    waiting = [make_user() for _ in range(3)]
    entries = [EventWaitList.objects.create(event=rsvp_event, user=u) for u in waiting]
    offer = give_offer(rsvp_event, waiting[0], expires_at=timezone.now() + timedelta(hours=1))
    lapsed = give_offer(rsvp_event, waiting[2], expires_at=timezone.now() - timedelta(hours=1))
    WaitlistOffer.objects.filter(pk=lapsed.pk).update(
        status=WaitlistOffer.WaitlistOfferStatus.EXPIRED
    )
    invitation = Invitation.objects.create(event=rsvp_event, user=member)
    rsvp = rsvp_event.rsvps.get(user=attendees[0])

    # A ticketed event with a free tier and tickets, the organiser holding one.
    ticketed = make_event(org, requires_ticket=True, max_attendees=20, venue=venue)
    tier = make_tier(ticketed, payment_method=TicketTier.PaymentMethod.FREE, total_quantity=10)
    holders = fill_with_tickets(ticketed, tier, 2)
    ticket = ticketed.tickets.get(user=holders[0])
    own_ticket = ticketed.tickets.create(tier=tier, user=organiser)
    unpaid = ticketed.tickets.create(tier=tier, user=make_user(), status=Ticket.Status.PENDING)

    # A recurring series with generated occurrences.
    series = make_series(org, rule=make_rule(dtstart=timezone.now() + timedelta(days=1)))
    occurrences = generate(series)

    for n in range(3):
        Notification.objects.create(
            user=organiser,
            notification_type=NotificationType.choices[0][0],
            title=f"Note {n}",
            body="Body",
            in_app=True,
        )
    notification = Notification.objects.filter(user=organiser).first()
    assert notification is not None

    world = World(organiser=organiser)
    world.event_admin = [
        {
            "event_id": rsvp_event.pk,
            "rsvp_id": rsvp.pk,
            "invitation_id": invitation.pk,
            "entry_id": entries[1].pk,
            "offer_id": offer.pk,
        },
        {"event_id": rsvp_event.pk, "offer_id": lapsed.pk, "entry_id": entries[2].pk},
        {"event_id": ticketed.pk, "tier_id": tier.pk, "ticket_id": ticket.pk},
        {"event_id": ticketed.pk, "ticket_id": unpaid.pk},
        *({"event_id": event.pk} for event in occurrences[:1]),
        {"event_id": series.template_event_id},
    ]
    world.organization_admin = [
        {
            "slug": org.slug,
            "series_id": series.pk,
            "venue_id": venue.pk,
            "request_id": request.pk,
            "entry_id": banned.pk,
            "user_id": member.pk,
        },
        {"slug": org.slug, "user_id": staffer.pk},
    ]
    world.public = [
        {
            "event_id": rsvp_event.pk,
            "slug": org.slug,
            "series_id": series.pk,
            "org_slug": org.slug,
            "series_slug": series.slug,
            "notification_id": notification.pk,
        },
        {"event_id": ticketed.pk, "ticket_id": own_ticket.pk},
    ]
    world.body_ids = {
        "user_id": [member.pk, staffer.pk, applicant.pk, waiting[1].pk, attendees[1].pk],
        "waitlist_entry_id": [entries[1].pk, entries[2].pk],
        "tier_id": [tier.pk],
    }
    return world


# -- the run -----------------------------------------------------------------------------------
@dataclass
class Run:
    cases: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    by_operation: dict[str, Counter[int]] = field(default_factory=dict)
    phases: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)


def load_schema(world: World) -> Any:
    config = schemathesis.Config.from_dict(CONFIG)
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


def fuzz(world: World, headers: dict[str, str], only: str | None = None) -> Run:
    """Every operation of the schema (or the one with operation id `only`), each case in
    a savepoint rolled back afterwards."""
    load_all_checks()
    schema = load_schema(world)
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
            transaction.savepoint_rollback(savepoint)

    for result in get_all_tests(schema=schema, test_func=test, settings=SETTINGS, given_kwargs={}):
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


@pytest.fixture
def api_json(client: Any) -> dict[str, Any]:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    return response.json()


@pytest.fixture
def world(api_json: dict[str, Any]) -> Iterator[World]:
    # As Django's test client does around its requests: the end of a request must not
    # close the test's connection, whose transaction holds the seeded objects. (After
    # `api_json`, as the test client connects the signal again when it is done.)
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield build_world()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def test_every_operation_keeps_the_contract_for_anonymous_callers(
    world: World, api_json: dict[str, Any]
) -> None:
    started = time.monotonic()
    run = fuzz(world, headers={})
    print(report(run))
    assert_clean(run, api_json)
    print(f"anonymous: {sum(run.cases.values())} cases in {time.monotonic() - started:.0f} s")


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
