"""Param and the compiled SELECT, INSERT ... SELECT, UPDATE and DELETE (package doc)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Expression, Field, Model, QuerySet
from django.db.models.sql.compiler import SQLCompiler
from django.db.models.sql.subqueries import DeleteQuery, UpdateQuery

from common.compiled_query.prepared import PreparedForms, Slot, execute


class Param(Expression):
    """A named value supplied at each execution; `output_field` prepares it for the database.

    Usable wherever the ORM takes an expression: `filter(user_id=Param("user_id",
    UUIDField()))`, `Exact(Upper("email"), Upper(Param(...)))`, an annotation. A lookup
    that rewrites its right-hand value in Python (`iexact` on SQLite escapes it for
    LIKE) cannot take one: spell it with database functions instead.
    """

    def __init__(self, name: str, output_field: Field[Any, Any]) -> None:
        super().__init__(output_field=output_field)
        self.name = name

    def as_sql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper) -> tuple[str, list]:
        return "%s", [Slot(self.name, self.output_field)]


@dataclass(frozen=True)
class _Compiled:
    sql: str
    #: Constants baked in at compile time, and `Slot`s filled at each execution.
    params: tuple[Any, ...]
    columns: tuple[str, ...]
    #: The selected expressions, for the backend's and the fields' result converters.
    select: tuple[Any, ...]


class CompiledQuery:
    """A `values()` queryset built by `build` on first use, kept as SQL per database alias.

    With `limit=True` the statement ends in `LIMIT %s` and each execution passes `limit=`;
    the ORM would otherwise bake the slice into the SQL. With `prepared_as=<label>` it
    runs as a server-side prepared statement on PostgreSQL (`prepared.py`).
    """

    def __init__(
        self,
        build: Callable[[], QuerySet[Any, Any]],
        *,
        limit: bool = False,
        prepared_as: str | None = None,
    ) -> None:
        self._build = build
        self._limit = limit
        self._prepared_as = prepared_as
        self._compiled: dict[str, _Compiled] = {}
        self._forms = PreparedForms(prepared_as)
        self._lock = threading.Lock()

    def compiled(self, using: str = DEFAULT_DB_ALIAS) -> _Compiled:
        found = self._compiled.get(using)
        if found is None:
            with self._lock:
                found = self._compiled.get(using) or self._compile(using)
                self._compiled[using] = found
        return found

    def _compile(self, using: str) -> _Compiled:
        queryset = self._build()
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        select = compiler.select[: compiler.col_count]
        columns = tuple(alias for _, _, alias in select)
        if None in columns:
            raise ValueError("every selected column needs a name: build a values() queryset")
        if self._limit:
            sql, params = f"{sql} LIMIT %s", (*params, Slot("limit", _LIMIT_FIELD))
        return _Compiled(sql, tuple(params), columns, tuple(expr for expr, _, _ in select))

    def rows(self, using: str = DEFAULT_DB_ALIAS, **values: Any) -> list[dict[str, Any]]:
        """Execute with these values; each row a dict by column name, values converted
        as the ORM would (UUIDs, datetimes and booleans on SQLite included)."""
        connection = connections[using]
        compiled = self.compiled(using)
        form = self._forms.get(using, compiled.sql, compiled.params, connection)
        with connection.cursor() as cursor:
            execute(
                cursor, connection, form, sql=compiled.sql, params=compiled.params, values=values
            )
            raw = cursor.fetchall()
        converters = row_converters(compiled.select, connection)
        return [row_as_dict(row, compiled, converters, connection) for row in raw]


_LIMIT_FIELD: Field[Any, Any] = Field()


def row_converters(select: Sequence[Any], connection: BaseDatabaseWrapper) -> list[list[Callable]]:
    """Each selected column's database converters, looked up once per statement: a read
    that runs its own SQL (the lottery's ring union) converts its rows as Django would."""
    return [
        connection.ops.get_db_converters(expr) + expr.get_db_converters(connection)
        for expr in select
    ]


def row_as_dict(
    row: Sequence[Any],
    compiled: _Compiled,
    converters: list[list[Callable]],
    connection: BaseDatabaseWrapper,
) -> dict[str, Any]:
    """One raw row as `{column: converted value}`, as `values()` would answer it."""
    values = list(row)
    for position, convs in enumerate(converters):
        for convert in convs:
            values[position] = convert(values[position], compiled.select[position], connection)
    return dict(zip(compiled.columns, values, strict=True))


class CompiledInsert:
    """`INSERT INTO <model> (...) SELECT ...`: rows made by the database from a query.

    `build` returns a `values()` queryset; `into` maps each of its column names to the
    model field it fills (the names differ when the query runs over another model,
    whose own field names an annotation may not reuse). Returns the new rows' primary
    keys. Used where the rows to write are themselves the answer of a query (a batch
    of offers is the head of the queue), so they never travel to Python and back.
    """

    def __init__(
        self,
        model: type[Model],
        build: Callable[[], QuerySet[Any, Any]],
        *,
        into: Mapping[str, str],
        limit: bool = False,
        prepared_as: str | None = None,
    ) -> None:
        self._model = model
        self._into = dict(into)
        self._select = CompiledQuery(build, limit=limit)
        self._sql: dict[str, str] = {}
        self._forms = PreparedForms(prepared_as)

    def execute(self, using: str = DEFAULT_DB_ALIAS, **values: Any) -> list[Any]:
        compiled = self._select.compiled(using)
        sql = self._insert_sql(using, compiled)
        connection = connections[using]
        form = self._forms.get(using, sql, compiled.params, connection)
        pk = self._model._meta.pk
        assert pk is not None
        with connection.cursor() as cursor:
            execute(cursor, connection, form, sql=sql, params=compiled.params, values=values)
            return [pk.to_python(row[0]) for row in cursor.fetchall()]

    def _insert_sql(self, using: str, compiled: _Compiled) -> str:
        """The INSERT around the compiled SELECT, built once per database alias."""
        found = self._sql.get(using)
        if found is None:
            meta = self._model._meta
            quote = connections[using].ops.quote_name
            columns = ", ".join(quote(self._column(self._into[name])) for name in compiled.columns)
            assert meta.pk is not None
            found = (
                f"INSERT INTO {quote(meta.db_table)} ({columns}) {compiled.sql} "
                f"RETURNING {quote(meta.pk.column)}"
            )
            self._sql[using] = found
        return found

    def _column(self, field_name: str) -> str:
        field = self._model._meta.get_field(field_name)
        assert isinstance(field, Field) and field.column, f"{field_name} is no column"
        return field.column


class CompiledWrite:
    """An `UPDATE` or `DELETE` of a queryset, compiled once per alias; returns rows changed.

    For the statements a claim runs while it holds the Event lock (ADR 0022): there,
    every microsecond Django spends building a query is a microsecond every other
    claimer of the event waits. `build` returns the filtered queryset and, for an update,
    the assignments (`{"status": ..., "claimed_at": Param(...)}`); both may hold `Param`s.
    As `QuerySet.update` does, an update neither runs signals nor touches `auto_now`
    fields; unlike `QuerySet.delete`, a delete runs no collector: no signals, no
    cascades in Python. Use it only where the caller has done what those would do.
    """

    def __init__(
        self,
        build: Callable[[], tuple[QuerySet[Any, Any], Mapping[str, Any] | None]],
        *,
        prepared_as: str | None = None,
    ) -> None:
        self._build = build
        self._compiled: dict[str, tuple[str, tuple[Any, ...]]] = {}
        self._forms = PreparedForms(prepared_as)
        self._lock = threading.Lock()

    def _compile(self, using: str) -> tuple[str, tuple[Any, ...]]:
        queryset, assignments = self._build()
        if assignments is None:
            query: Any = queryset.query.chain(DeleteQuery)
        else:
            query = queryset.query.chain(UpdateQuery)
            query.add_update_values(assignments)
        compiler = query.get_compiler(using=using)
        compiler.pre_sql_setup()
        sql, params = compiler.as_sql()
        return sql, tuple(params)

    def execute(self, using: str = DEFAULT_DB_ALIAS, **values: Any) -> int:
        found = self._compiled.get(using)
        if found is None:
            with self._lock:
                found = self._compiled.get(using) or self._compile(using)
                self._compiled[using] = found
        sql, params = found
        connection = connections[using]
        form = self._forms.get(using, sql, params, connection)
        with connection.cursor() as cursor:
            execute(cursor, connection, form, sql=sql, params=params, values=values)
            return cursor.rowcount
