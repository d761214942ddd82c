"""Compiled statements prepared on the server answer as the plain ones do (ADR 0028).

On Django's own tables (groups): `common` may not import the apps built on it.
"""

import pytest
from django.contrib.auth.models import Group
from django.db import connection, transaction
from django.db.models import CharField, Q
from django.test.utils import CaptureQueriesContext

from common.compiled_query import CompiledInstances, CompiledQuery, Param, expanded
from common.compiled_query.prepared import prepared_form

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

NAMES = ("alpha", "beta", "50% off", "it's", "gamma")


@pytest.fixture(autouse=True)
def _groups() -> None:
    Group.objects.bulk_create(Group(name=name) for name in NAMES)


def _build():
    first = Param("first", CharField())
    # The same Param twice, a constant with a quote and one with a LIKE wildcard.
    return (
        Group.objects.filter(Q(name__gt=first) | Q(name=first))
        .exclude(name__in=["it's never"])
        .exclude(name__startswith="50%x")
        .order_by("name")
        .values("name")
    )


def _names(rows: list[dict[str, str]]) -> list[str]:
    return [row["name"] for row in rows]


def test_a_param_used_twice_is_one_slot_declared_with_its_column_type() -> None:
    compiled = CompiledQuery(_build).compiled()

    form = prepared_form("groups", compiled.sql, compiled.params, connection)

    assert [slot.name for slot in form.slots] == ["first"]
    assert form.prepare.startswith(f"PREPARE {form.name} (varchar) AS SELECT")
    assert form.prepare.count("$1") == 2
    assert "'it''s never'" in form.prepare  # a constant, quoted as a literal
    assert form.execute == f"EXECUTE {form.name}(%s)"
    assert form.name.startswith("encore_groups_")


def test_a_label_must_be_an_identifier() -> None:
    compiled = CompiledQuery(_build).compiled()
    with pytest.raises(ValueError, match="lower-case identifier"):
        prepared_form("Groups; DROP", compiled.sql, compiled.params, connection)


def test_a_prepared_query_answers_as_the_plain_one_with_one_statement_each_time() -> None:
    plain, prepared = CompiledQuery(_build), CompiledQuery(_build, prepared_as="groups_read")
    for first in ("a", "b", "it", "zzz", "50"):
        with CaptureQueriesContext(connection) as captured:
            answer = prepared.rows(first=first)
        assert answer == plain.rows(first=first), first
        [statement] = captured.captured_queries  # the PREPARE is not a query of the call
        assert statement["sql"].startswith("EXECUTE encore_groups_read_")
        assert 'FROM "auth_group"' in expanded(statement["sql"])
    assert _names(prepared.rows(first="b")) == ["beta", "gamma", "it's"]


def test_an_unknown_statement_is_expanded_to_itself() -> None:
    assert expanded('SELECT 1 FROM "auth_group"') == 'SELECT 1 FROM "auth_group"'
    assert expanded("EXECUTE encore_nothing_123(1)") == "EXECUTE encore_nothing_123(1)"


@pytest.mark.django_db(transaction=True)
def test_the_statement_outlives_a_rolled_back_transaction_and_a_reconnect() -> None:
    query = CompiledQuery(_build, prepared_as="groups_rollback")

    class Undo(Exception):
        pass

    with pytest.raises(Undo), transaction.atomic():
        assert _names(query.rows(first="g")) == ["gamma", "it's"]  # prepared in here
        raise Undo
    assert _names(query.rows(first="g")) == ["gamma", "it's"]  # PREPARE survived it

    connection.close()  # a new session knows nothing of the old one's statements
    assert _names(query.rows(first="h")) == ["it's"]


def test_the_prepared_statement_runs_on_a_generic_plan() -> None:
    query = CompiledQuery(_build, prepared_as="groups_plan")
    for first in ("a", "b", "c", "d", "e", "f", "g"):
        query.rows(first=first)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE name LIKE 'encore_groups_plan_%%'"
        )
        [(generic, custom)] = cursor.fetchall()

    assert (generic, custom) == (7, 0)


def test_prepared_instances_are_the_querysets_own() -> None:
    def build():
        return Group.objects.filter(name__lt=Param("below", CharField())).order_by("name")

    door = CompiledInstances(build, prepared_as="groups_instances")

    found = door.all(below="c")

    assert [(g.pk, g.name) for g in found] == [
        (g.pk, g.name) for g in Group.objects.filter(name__lt="c").order_by("name")
    ]
    assert found and not found[0]._state.adding
