"""`ColumnsInsert` writes what `bulk_create` writes, from columns, and refuses what it cannot
write safely (`common/compiled_query/columns.py`). On the outbox table: `common` may not
import the apps built on it."""

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.utils import timezone

from common.compiled_query import ColumnsInsert
from common.models import OutboxMessage

pytestmark = pytest.mark.django_db

SHARED = ("task_name", "args", "kwargs", "queue", "last_error", "sent_at", "created_at")
INSERT = ColumnsInsert(OutboxMessage, per_row=("id", "attempts"), shared=(*SHARED, "updated_at"))


def _shared(**changes: Any) -> dict[str, Any]:
    now = timezone.now()
    values = {
        "task_name": "events.send",
        "args": ["a", 1],
        "kwargs": {"k": "v"},
        "queue": "critical",
        "last_error": 'quote " and \\ and {brace}',
        "sent_at": None,
        "created_at": now,
        "updated_at": now + timedelta(seconds=1),
    }
    return {**values, **changes}


def _write(insert: ColumnsInsert, rows: dict[str, list[Any]], shared: dict[str, Any]) -> int:
    statements = insert.statements(rows, shared, "default")
    with connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)
    return len(statements)


FIELDS = ("id", "task_name", "args", "kwargs", "queue", "attempts", "last_error", "sent_at")


def _stored() -> list[tuple[Any, ...]]:
    return list(OutboxMessage.objects.order_by("attempts").values_list(*FIELDS))


@pytest.mark.parametrize("count", [1, 3, 50])
def test_writes_the_rows_bulk_create_writes(count: int) -> None:
    ids = [uuid.uuid4() for _ in range(count)]
    shared = _shared()
    OutboxMessage.objects.bulk_create(
        OutboxMessage(pk=pk, attempts=n, **{k: shared[k] for k in SHARED})
        for n, pk in enumerate(ids)
    )
    expected = _stored()
    OutboxMessage.objects.all().delete()

    _write(INSERT, {"id": ids, "attempts": list(range(count))}, shared)

    assert _stored() == expected
    stamps = set(OutboxMessage.objects.values_list("created_at", "updated_at"))
    assert stamps == {(shared["created_at"], shared["updated_at"])}  # no auto_now applied


def test_one_statement_on_postgresql_and_chunks_within_sqlite_parameter_limit() -> None:
    count = 3000  # ten fields a row: far past SQLite's 999 parameters a statement
    statements = _write(
        INSERT, {"id": [uuid.uuid4() for _ in range(count)], "attempts": [1] * count}, _shared()
    )

    assert OutboxMessage.objects.count() == count
    if connection.vendor == "postgresql":
        assert statements == 1
    else:
        fields = OutboxMessage._meta.concrete_fields
        assert statements == -(-count // connection.ops.bulk_batch_size(fields, [None] * count))


def test_a_related_column_takes_its_target_type_and_none_is_null() -> None:
    """Django's log entries: an integer key, a nullable foreign key to an integer key."""
    user = get_user_model().objects.create_user(email="ops@encore.test", password="x" * 12)
    kind = ContentType.objects.get_for_model(Group)
    insert = ColumnsInsert(
        LogEntry,
        per_row=("id", "content_type", "action_flag"),
        shared=("action_time", "user", "object_id", "object_repr", "change_message"),
    )
    shared = {
        "action_time": timezone.now(),
        "user": user.pk,
        "object_id": "7",
        "object_repr": "g",
        "change_message": "",
    }

    _write(insert, {"id": [41, 42], "content_type": [kind.pk, None], "action_flag": [1, 3]}, shared)

    rows = LogEntry.objects.order_by("pk").values_list("pk", "content_type", "action_flag", "user")
    assert list(rows) == [(41, kind.pk, 1, user.pk), (42, None, 3, user.pk)]


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("id", "11111111-1111-1111-1111-111111111111,22222222-2222-2222-2222-222222222222"),
        ("attempts", "1,2"),
        ("attempts", 1.5),
    ],
)
def test_a_value_of_another_type_is_refused_before_anything_is_sent(
    column: str, value: Any
) -> None:
    rows: dict[str, list[Any]] = {"id": [uuid.uuid4()], "attempts": [1]}
    rows[column] = [value]

    with pytest.raises(TypeError):
        INSERT.statements(rows, _shared(), "default")
    assert not OutboxMessage.objects.exists()


def test_columns_of_unequal_length_are_refused() -> None:
    with pytest.raises(ValueError, match="one value per row"):
        INSERT.statements({"id": [uuid.uuid4()], "attempts": [1, 2]}, _shared(), "default")


def test_every_concrete_field_must_be_named_once() -> None:
    missing = ColumnsInsert(OutboxMessage, per_row=("id",), shared=SHARED)
    with pytest.raises(ValueError, match=r"missing \['attempts', 'updated_at'\]"):
        missing.statements({"id": [uuid.uuid4()]}, _shared(), "default")


def test_a_per_row_text_column_is_refused() -> None:
    texts = ColumnsInsert(
        OutboxMessage,
        per_row=("id", "attempts", "queue"),
        shared=(*SHARED[:3], *SHARED[4:], "updated_at"),
    )
    with pytest.raises(TypeError, match="queue: a per-row column holds UUIDs or integers"):
        texts.statements(
            {"id": [uuid.uuid4()], "attempts": [1], "queue": ["x"]}, _shared(), "default"
        )
