"""`ColumnsInsert`: many rows of one model written from columns, not instances (package doc).

Why: a lottery pass writes fifty offers with their draw record (docs/spec/quality.md a3). Made as
fifty model instances and sent through Django's compiler (or `RowsInsert`), each of an
offer's fifteen fields is prepared fifty times, and psycopg then turns every column into
an array one Python element at a time: together about half of the pass. Yet only five
columns differ from row to row (the offer's id, its member, their seats, the tier and
the draw); the rest (event, deadline, status, stamps) is one value for the whole batch.

So the caller names, once, which fields differ per row and which the rows share, then
gives the per-row fields as columns of plain values and the shared ones once. On
PostgreSQL that is one `INSERT ... SELECT ... FROM UNNEST(...)`: each per-row column
travels as one array literal that the database parses (`'{...}'::uuid[]`), each shared
value as one parameter prepared by its field. Per-row columns hold UUIDs or integers
only, whose text form needs no quoting inside an array literal; a value of any other
type is refused, so no value can add an element. Other databases get one multi-row
`VALUES` per chunk their parameter limit allows, every value prepared by its field.

Every concrete field is named, once: nothing is left to a Python default, which
`INSERT ... SELECT` would not apply (`auto_now` included: the caller passes the stamps).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

#: Internal types whose values a per-row column may hold, with their array-literal text.
_UUID_TYPES = {"UUIDField"}
_INTEGER_TYPES = {
    "AutoField",
    "BigAutoField",
    "SmallAutoField",
    "BigIntegerField",
    "IntegerField",
    "PositiveBigIntegerField",
    "PositiveIntegerField",
    "PositiveSmallIntegerField",
    "SmallIntegerField",
}


def _uuid_text(value: Any) -> str:
    if not isinstance(value, uuid.UUID):
        raise TypeError(f"a UUID column takes uuid.UUID values, not {type(value).__name__}")
    return str(value)


def _integer_text(value: Any) -> str:
    if not isinstance(value, int):
        raise TypeError(f"an integer column takes int values, not {type(value).__name__}")
    return str(int(value))


def _element_text(field: Field[Any, Any]) -> Callable[[Any], str]:
    """How one value of a per-row column is written inside an array literal."""
    target = field.target_field if field.is_relation else field  # type: ignore[attr-defined]
    kind = target.get_internal_type()
    if kind in _UUID_TYPES:
        return _uuid_text
    if kind in _INTEGER_TYPES:
        return _integer_text
    raise TypeError(f"{field.name}: a per-row column holds UUIDs or integers, not {kind}")


def _array_literal(values: Sequence[Any], text: Callable[[Any], str]) -> str:
    """`{a,b,NULL}`: PostgreSQL's text form of an array whose elements need no quoting."""
    return "{" + ",".join("NULL" if value is None else text(value) for value in values) + "}"


@dataclass(frozen=True)
class _Columns:
    """The fields resolved on first use (models are loaded by then)."""

    per_row: tuple[Field[Any, Any], ...]
    shared: tuple[Field[Any, Any], ...]
    texts: tuple[Callable[[Any], str], ...]


class ColumnsInsert:
    """A multi-row INSERT of `model` from per-row columns and shared values (module doc)."""

    def __init__(self, model: type[Model], *, per_row: Sequence[str], shared: Sequence[str]):
        self.model = model
        self._names = (tuple(per_row), tuple(shared))
        self._columns: _Columns | None = None
        #: The UNNEST statement per alias (computing it twice in a race gives the same text).
        self._sql: dict[str, str] = {}

    def _field(self, name: str) -> Field[Any, Any]:
        field = self.model._meta.get_field(name)
        if not isinstance(field, Field) or not field.concrete:
            raise ValueError(f"{self.model._meta.label}.{name} is not a concrete field")
        return field

    def _resolved(self) -> _Columns:
        if self._columns is None:
            meta = self.model._meta
            per_row = tuple(self._field(name) for name in self._names[0])
            shared = tuple(self._field(name) for name in self._names[1])
            named = [str(f.column) for f in (*per_row, *shared)]
            every = [str(f.column) for f in meta.concrete_fields]
            if sorted(named) != sorted(every):
                raise ValueError(
                    f"{meta.label}: name every concrete field once, per row or shared "
                    f"(missing {sorted(set(every) - set(named))}, "
                    f"extra {sorted(set(named) - set(every))})"
                )
            texts = tuple(_element_text(field) for field in per_row)
            self._columns = _Columns(per_row, shared, texts)
        return self._columns

    def statements(
        self,
        rows: Mapping[str, Sequence[Any]],
        shared: Mapping[str, Any],
        using: str,
    ) -> list[tuple[str, tuple[Any, ...]]]:
        """The INSERT of the rows as (SQL, parameters): one on PostgreSQL, else per chunk.

        `rows` holds one equally long sequence per per-row field, `shared` one value per
        shared field, each keyed by the field's name as given to the constructor.
        """
        columns = self._resolved()
        per_row = [rows[field.name] for field in columns.per_row]
        count = len(per_row[0]) if per_row else 0
        if any(len(values) != count for values in per_row):
            raise ValueError("every per-row column needs one value per row")
        if count == 0:
            return []
        connection = connections[using]
        shared_params = tuple(
            field.get_db_prep_save(shared[field.name], connection) for field in columns.shared
        )
        # Written, and so checked, on every database: the same values are refused everywhere.
        arrays = tuple(
            _array_literal(values, text)
            for values, text in zip(per_row, columns.texts, strict=True)
        )
        if connection.vendor == "postgresql":
            return [(self._unnest_sql(columns, connection), (*shared_params, *arrays))]
        return self._values_statements(columns, per_row, shared_params, connection)

    def _unnest_sql(self, columns: _Columns, connection: BaseDatabaseWrapper) -> str:
        sql = self._sql.get(connection.alias)
        if sql is None:
            shared = ", ".join(f"%s::{f.db_type(connection)}" for f in columns.shared)
            aliases = [f"c{n}" for n in range(len(columns.per_row))]
            arrays = ", ".join(f"%s::{f.db_type(connection)}[]" for f in columns.per_row)
            selected = ", ".join(filter(None, [shared, ", ".join(f"r.{a}" for a in aliases)]))
            sql = (
                f"{self._insert_into(columns, connection)} "
                f"SELECT {selected} FROM UNNEST({arrays}) AS r({', '.join(aliases)})"
            )
            self._sql[connection.alias] = sql
        return sql

    def _insert_into(self, columns: _Columns, connection: BaseDatabaseWrapper) -> str:
        """`INSERT INTO "table" (shared columns, per-row columns)`, the order of the values."""
        quote = connection.ops.quote_name
        names = ", ".join(quote(str(f.column)) for f in (*columns.shared, *columns.per_row))
        return f"INSERT INTO {quote(self.model._meta.db_table)} ({names})"

    def _values_statements(
        self,
        columns: _Columns,
        per_row: list[Sequence[Any]],
        shared_params: tuple[Any, ...],
        connection: BaseDatabaseWrapper,
    ) -> list[tuple[str, tuple[Any, ...]]]:
        fields = (*columns.shared, *columns.per_row)
        rows = [
            (
                *shared_params,
                *(
                    field.get_db_prep_save(value, connection)
                    for field, value in zip(columns.per_row, values, strict=True)
                ),
            )
            for values in zip(*per_row, strict=True)
        ]
        chunk = max(1, connection.ops.bulk_batch_size(list(fields), rows))
        placeholder = "(" + ", ".join(["%s"] * len(fields)) + ")"
        head = self._insert_into(columns, connection)
        statements = []
        for start in range(0, len(rows), chunk):
            part = rows[start : start + chunk]
            sql = f"{head} VALUES {', '.join([placeholder] * len(part))}"
            statements.append((sql, tuple(value for row in part for value in row)))
        return statements
