"""Compiled statements answer as the ORM would, with fresh values each time (ADR 0006).

Exercised on Django's own tables (groups, sessions): `common` may not import the apps
built on it.
"""

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.db import connection
from django.db.models import CharField, DateTimeField, F, IntegerField, Value
from django.db.models.functions import Concat
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from common.compiled_query import (
    CompiledInsert,
    CompiledInstances,
    CompiledQuery,
    Param,
    RowsInsert,
)
from common.compiled_query import instances as compiled_instances
from common.db_functions import RandomUUID
from common.models import OutboxMessage

pytestmark = pytest.mark.django_db


def _groups(*names: str) -> None:
    Group.objects.bulk_create(Group(name=name) for name in names)


def test_the_statement_is_built_once_and_run_with_each_calls_values() -> None:
    _groups("alpha", "beta", "gamma")
    builds = []

    def build():
        builds.append(1)
        return (
            Group.objects.filter(name__gte=Param("first", CharField()))
            .order_by("name")
            .values("name")
        )

    query = CompiledQuery(build, limit=True)

    assert query.rows(first="b", limit=1) == [{"name": "beta"}]
    assert query.rows(first="a", limit=5) == [{"name": n} for n in ("alpha", "beta", "gamma")]
    assert query.rows(first="h", limit=5) == []
    assert len(builds) == 1


def test_results_come_back_converted_as_the_orm_gives_them() -> None:
    now = timezone.now().replace(microsecond=0)
    Session.objects.create(session_key="later", session_data="x", expire_date=now + timedelta(1))
    Session.objects.create(session_key="gone", session_data="x", expire_date=now - timedelta(1))
    query = CompiledQuery(
        lambda: Session.objects.filter(expire_date__gt=Param("now", DateTimeField())).values(
            "session_key", "expire_date"
        )
    )

    rows = query.rows(now=now)

    assert rows == list(
        Session.objects.filter(expire_date__gt=now).values("session_key", "expire_date")
    )
    assert rows == [{"session_key": "later", "expire_date": now + timedelta(1)}]
    assert rows[0]["expire_date"].tzinfo is not None


def test_a_missing_value_is_refused_before_the_database_is_asked() -> None:
    query = CompiledQuery(
        lambda: Group.objects.filter(name=Param("name", CharField())).values("name")
    )

    with CaptureQueriesContext(connection) as queries, pytest.raises(TypeError, match="name"):
        query.rows()

    assert len(queries) == 0


def test_a_param_refuses_to_be_rewritten_as_text() -> None:
    """Where a lookup escapes its value in Python (iexact on SQLite), a Param fails loudly
    instead of matching against the placeholder's own text."""
    _, [slot] = Param("email", CharField()).as_sql(None, connection)  # type: ignore[arg-type]

    with pytest.raises(TypeError, match="email"):
        connection.ops.prep_for_like_query(slot)


def test_an_insert_from_a_query_writes_its_rows_and_returns_their_keys() -> None:
    _groups("alpha", "beta", "gamma")
    copy = CompiledInsert(
        Group,
        lambda: Group.objects.filter(name__lt=Param("below", CharField())).values(
            copy_name=Concat(F("name"), Value("-copy"))
        ),
        into={"copy_name": "name"},
    )

    keys = copy.execute(below="c")

    copies = Group.objects.filter(pk__in=keys)
    assert sorted(copies.values_list("name", flat=True)) == ["alpha-copy", "beta-copy"]
    assert Group.objects.count() == 5


def test_random_uuid_gives_a_distinct_version_4_key_per_row() -> None:
    _groups(*(f"group-{i}" for i in range(64)))

    keys = list(Group.objects.values_list(RandomUUID(), flat=True))

    assert len(set(keys)) == 64
    assert all(isinstance(key, uuid.UUID) for key in keys)
    assert {(key.version, key.variant) for key in keys} == {(4, uuid.RFC_4122)}


# -- RowsInsert ----------------------------------------------------------------------------
def _messages(count: int, **fields: Any) -> list[OutboxMessage]:
    return [
        OutboxMessage(task_name=f"task-{i}", args=[i, "x"], kwargs={"n": i}, **fields)
        for i in range(count)
    ]


def _run(insert: RowsInsert, objs: list[OutboxMessage]) -> str:
    sql, params = insert.statement(objs, "default")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
    return sql


def _stored() -> list[tuple[Any, ...]]:
    return list(
        OutboxMessage.objects.order_by("task_name").values_list(
            "task_name", "args", "kwargs", "queue", "attempts", "sent_at"
        )
    )


@pytest.mark.parametrize("count", [1, 4])
def test_rows_insert_writes_what_bulk_create_writes_and_compiles_a_shape_once(
    count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    OutboxMessage.objects.bulk_create(_messages(count, queue="bulk", attempts=2))
    expected = _stored()
    OutboxMessage.objects.all().delete()
    insert = RowsInsert()
    compiles: list[int] = []
    original = compiled_instances._compile_insert

    def counted(*args: Any) -> tuple[str, tuple[Any, ...]]:
        compiles.append(1)
        return original(*args)

    monkeypatch.setattr(compiled_instances, "_compile_insert", counted)

    before = timezone.now()
    first = _run(insert, _messages(count, queue="bulk", attempts=2))
    assert _stored() == expected
    OutboxMessage.objects.all().delete()
    second = _run(insert, _messages(count, queue="bulk", attempts=2))

    assert _stored() == expected
    assert first == second and len(compiles) == 1  # the second batch reused the text
    stamps = OutboxMessage.objects.values_list("created_at", "updated_at")
    assert all(created >= before and updated >= before for created, updated in stamps)


def test_rows_insert_keeps_rows_that_differ_in_every_column_apart() -> None:
    insert = RowsInsert()
    for _ in range(2):  # compiled, then cached
        OutboxMessage.objects.all().delete()
        objs = [
            OutboxMessage(task_name="same", queue=f"q{i}", attempts=i, args=[i]) for i in range(3)
        ]
        objs[1].sent_at = timezone.now()
        _run(insert, objs)
        rows = OutboxMessage.objects.order_by("attempts").values_list(
            "pk", "queue", "attempts", "args", "sent_at"
        )
        assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
            (o.pk, o.queue, o.attempts, o.args) for o in objs
        ]
        assert [r[4] is not None for r in rows] == [False, True, False]


def test_rows_insert_hands_a_batch_holding_an_expression_to_django() -> None:
    insert = RowsInsert()
    _run(insert, _messages(2))
    OutboxMessage.objects.all().delete()
    objs = _messages(2)
    objs[0].queue = Concat(Value("crit"), Value("ical"))

    _run(insert, objs)

    assert sorted(OutboxMessage.objects.values_list("queue", flat=True)) == ["", "critical"]


# -- CompiledInstances -----------------------------------------------------------------------
def _log_entries() -> tuple[LogEntry, LogEntry]:
    user = get_user_model().objects.create_user(email="ops@encore.test", password="x" * 12)
    kind = ContentType.objects.get_for_model(Group)
    typed = LogEntry.objects.create(
        user=user, content_type=kind, object_id="1", object_repr="g", action_flag=1
    )
    untyped = LogEntry.objects.create(user=user, object_repr="none", action_flag=2)
    return typed, untyped


def test_compiled_instances_answer_what_the_queryset_answers_with_its_joined_rows() -> None:
    typed, untyped = _log_entries()
    entries = CompiledInstances(
        lambda: LogEntry.objects.select_related("user", "content_type").filter(
            pk=Param("entry_id", IntegerField())
        )
    )

    for wanted in (typed, untyped, typed):  # compiled once, run three times
        with CaptureQueriesContext(connection) as captured:
            (found,) = entries.all(entry_id=wanted.pk)
            user: Any = found.user
            expected = LogEntry.objects.select_related("user", "content_type").get(pk=wanted.pk)
            joined = (user.get_username(), found.content_type)  # joined: no query
        assert len(captured.captured_queries) == 2
        assert [getattr(found, f.attname) for f in LogEntry._meta.concrete_fields] == [
            getattr(expected, f.attname) for f in LogEntry._meta.concrete_fields
        ]
        expected_user: Any = expected.user
        assert joined == (expected_user.get_username(), expected.content_type)
        assert found._state.adding is False and found._state.db == "default"
    assert entries.all(entry_id=-1) == []


def test_compiled_instances_carry_the_querysets_annotations() -> None:
    typed, untyped = _log_entries()

    def build() -> Any:
        return LogEntry.objects.annotate(
            label=Concat("object_repr", Value("#"), Param("suffix", CharField())),
            later=F("action_flag") + 10,
        ).filter(pk=Param("entry_id", IntegerField()))

    entries = CompiledInstances(build)

    for wanted, suffix in ((typed, "a"), (untyped, "b")):
        (found,) = entries.all(entry_id=wanted.pk, suffix=suffix)
        assert (found.label, found.later) == (
            f"{wanted.object_repr}#{suffix}",
            wanted.action_flag + 10,
        )
