"""Compiled statements answer as the ORM would, with fresh values each time (ADR 0006).

Exercised on Django's own tables (groups, sessions): `common` may not import the apps
built on it.
"""

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.db import connection
from django.db.models import CharField, DateTimeField, F, Value
from django.db.models.functions import Concat
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from common.compiled_query import CompiledInsert, CompiledQuery, Param
from common.db_functions import RandomUUID

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
