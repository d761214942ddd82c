"""Statements described with the ORM, compiled to SQL once per process, run with fresh values.

Why: a few hot paths (the eligibility context, the waitlist's processing pass) read
through querysets that nest a dozen correlated subqueries. Django rebuilds and
recompiles such a queryset on every call, and that costs several times what the
database spends answering it (quality.md rows a1 and d1). A `CompiledQuery` keeps the
ORM as the one description of the statement (the same selectors, the same expressions,
the same tests) but compiles it once per database alias; between executions only its
`Param` slots change. See ADR 0006.

What may change between executions is only what a `Param` stands for: the statement's
shape (which annotations, which ordering) is fixed when it is first compiled, so a
variant shape is a second `CompiledQuery`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Expression, Field, Model, QuerySet
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]
from django.db.models.sql.compiler import SQLCompiler
from django.db.models.sql.subqueries import DeleteQuery, InsertQuery, UpdateQuery


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
        return "%s", [_Slot(self.name, self.output_field)]


@dataclass(frozen=True)
class _Slot:
    """Where a Param's value goes in the compiled parameter list."""

    name: str
    field: Field[Any, Any]

    def __str__(self) -> str:
        """A lookup that rewrites its value as text (`iexact` on SQLite escapes it for
        LIKE) would otherwise send this placeholder's text as the value, silently."""
        raise TypeError(f"Param {self.name!r} used where the ORM rewrites values in Python")


@dataclass(frozen=True)
class _Compiled:
    sql: str
    #: Constants baked in at compile time, and `_Slot`s filled at each execution.
    params: tuple[Any, ...]
    columns: tuple[str, ...]
    #: The selected expressions, for the backend's and the fields' result converters.
    select: tuple[Any, ...]

    def bind(self, connection: BaseDatabaseWrapper, values: Mapping[str, Any]) -> list[Any]:
        return _bind(self.params, connection, values)


def _bind(
    params: Sequence[Any], connection: BaseDatabaseWrapper, values: Mapping[str, Any]
) -> list[Any]:
    missing = {p.name for p in params if isinstance(p, _Slot)} - set(values)
    if missing:
        raise TypeError(f"missing values for {sorted(missing)}")
    return [
        p.field.get_db_prep_value(values[p.name], connection) if isinstance(p, _Slot) else p
        for p in params
    ]


class CompiledQuery:
    """A `values()` queryset built by `build` on first use, kept as SQL per database alias.

    With `limit=True` the statement ends in `LIMIT %s` and each execution passes `limit=`;
    the ORM would otherwise bake the slice into the SQL.
    """

    def __init__(self, build: Callable[[], QuerySet[Any, Any]], *, limit: bool = False) -> None:
        self._build = build
        self._limit = limit
        self._compiled: dict[str, _Compiled] = {}
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
            sql, params = f"{sql} LIMIT %s", (*params, _Slot("limit", _LIMIT_FIELD))
        return _Compiled(sql, tuple(params), columns, tuple(expr for expr, _, _ in select))

    def bound(self, using: str, values: Mapping[str, Any]) -> tuple[_Compiled, list[Any]]:
        """The compiled statement and its parameters for these values (names it does not
        use are ignored), for running it or composing it into a larger statement."""
        compiled = self.compiled(using)
        return compiled, compiled.bind(connections[using], values)

    def rows(self, using: str = DEFAULT_DB_ALIAS, **values: Any) -> list[dict[str, Any]]:
        """Execute with these values; each row a dict by column name, values converted
        as the ORM would (UUIDs, datetimes and booleans on SQLite included)."""
        compiled, params = self.bound(using, values)
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            raw = cursor.fetchall()
        converters = _converters(compiled.select, connection)
        return [_as_dict(row, compiled, converters, connection) for row in raw]


_LIMIT_FIELD: Field[Any, Any] = Field()


def _converters(select: Sequence[Any], connection: BaseDatabaseWrapper) -> list[list[Callable]]:
    return [
        connection.ops.get_db_converters(expr) + expr.get_db_converters(connection)
        for expr in select
    ]


def _as_dict(
    row: Sequence[Any],
    compiled: _Compiled,
    converters: list[list[Callable]],
    connection: BaseDatabaseWrapper,
) -> dict[str, Any]:
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
    ) -> None:
        self._model = model
        self._into = dict(into)
        self._select = CompiledQuery(build, limit=limit)
        self._sql: dict[str, str] = {}

    def execute(self, using: str = DEFAULT_DB_ALIAS, **values: Any) -> list[Any]:
        compiled, params = self._select.bound(using, values)
        pk = self._model._meta.pk
        assert pk is not None
        with connections[using].cursor() as cursor:
            cursor.execute(self._insert_sql(using, compiled), params)
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
        self, build: Callable[[], tuple[QuerySet[Any, Any], Mapping[str, Any] | None]]
    ) -> None:
        self._build = build
        self._compiled: dict[str, tuple[str, tuple[Any, ...]]] = {}
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
        with connection.cursor() as cursor:
            cursor.execute(sql, _bind(params, connection, values))
            return cursor.rowcount


class RowsInsert:
    """A multi-row `INSERT` of model instances, its SQL compiled once per shape.

    Why: a lottery pass writes its fifty offers and their draw record in one statement
    (quality.md a2, a3), and Django compiles that INSERT anew for every batch: the
    statement's text is the same for every batch of the same size (PostgreSQL's UNNEST
    form has one array per column, whatever the size), only the values change. The text
    is taken from Django's own compiler the first time a shape is seen (model, number of
    rows, database); afterwards only the values are prepared, exactly as the compiler
    prepares them (`pre_save(add=True)`, then `get_db_prep_save`), so `auto_now` fields
    and every field's own conversion behave as in `bulk_create`.

    Only plain values are kept to the cached path: a batch holding an expression, or a
    shape whose parameters the compiler laid out in any way but the two known ones (one
    list per column, or one value per field per row), is compiled by Django every time.
    Keys and defaults must be filled in Python (no RETURNING is read).
    """

    def __init__(self) -> None:
        self._shapes: dict[tuple[type[Model], int, str], tuple[str, bool] | None] = {}
        self._lock = threading.Lock()

    def statement(self, objs: Sequence[Model], using: str) -> tuple[str, tuple[Any, ...]]:
        """The INSERT of `objs` (all of one model) as SQL and parameters."""
        model = type(objs[0])
        fields = list(model._meta.concrete_fields)
        key = (model, len(objs), using)
        known = key in self._shapes
        shape = self._shapes.get(key)
        if shape is None or _holds_expressions(objs, fields):
            sql, params = _compile_insert(model, fields, objs, using)
            if not known:
                with self._lock:
                    self._shapes[key] = _shape_of(params, len(fields), len(objs), sql)
            return sql, params
        sql, by_column = shape
        connection = connections[using]
        columns = [_prepared_column(field, objs, connection) for field in fields]
        if by_column:
            return sql, tuple(columns)
        return sql, tuple(value for row in zip(*columns, strict=True) for value in row)


def _prepared_column(
    field: Any, objs: Sequence[Model], connection: BaseDatabaseWrapper
) -> list[Any]:
    """One column's values, prepared as the compiler prepares them. A batch's rows share
    most of their columns (event, batch, deadline, status), so a column whose values are
    all equal is prepared once."""
    raw = [field.pre_save(obj, add=True) for obj in objs]
    first = raw[0]
    if all(value is first for value in raw) or all(value == first for value in raw):
        return [field.get_db_prep_save(first, connection)] * len(raw)
    return [field.get_db_prep_save(value, connection) for value in raw]


def _compile_insert(
    model: type[Model], fields: list[Any], objs: Sequence[Model], using: str
) -> tuple[str, tuple[Any, ...]]:
    query = InsertQuery(model)
    query.insert_values(fields, list(objs))
    statements = query.get_compiler(using=using).as_sql()
    assert len(statements) == 1, "one INSERT per model expected"
    sql, params = statements[0]
    return sql, tuple(params)


def _shape_of(params: tuple[Any, ...], fields: int, rows: int, sql: str) -> tuple[str, bool] | None:
    """How the compiler laid the values out: by column (UNNEST), by row, or unknown."""
    if (
        rows > 1
        and len(params) == fields
        and all(isinstance(p, list) and len(p) == rows for p in params)
    ):
        return sql, True
    if len(params) == fields * rows:
        return sql, False
    return None


def _holds_expressions(objs: Sequence[Model], fields: list[Any]) -> bool:
    return any(
        hasattr(getattr(obj, field.attname), "resolve_expression")
        for obj in objs
        for field in fields
    )


class CompiledInstances:
    """A model queryset (joined `select_related` rows included) compiled once per alias,
    answering model instances as the queryset would.

    Why: the Event lock every waitlist pass and offer operation begins with
    (`events.service.locks.lock_event`) is a `select_for_update().select_related()`
    whose compilation costs Django more than the database spends answering it (about
    0.7 ms of a lottery pass's 8, quality.md a3). The SQL is compiled once (the first
    call: inside a transaction when it locks); each call then runs it with its `Param`
    values and turns the rows into instances with the same steps Django's model
    iterable takes: the compiler's converters, `Model.from_db`, the related populators.
    Those are Django internals, used here as `ModelIterable` uses them (Django is pinned
    to 5.2); `test_compiled_query.py` compares the instances with the ORM's. The kept
    compiler belongs to the connection that compiled it; other threads use it only for
    its select list and its converters, which read that backend's settings (its
    operations, its time zone), never its socket: each call runs on its own connection.
    """

    def __init__(self, build: Callable[[], QuerySet[Any, Any]]) -> None:
        self._build = build
        self._compiled: dict[str, tuple[SQLCompiler, str, tuple[Any, ...]]] = {}
        self._lock = threading.Lock()

    def _compile(self, using: str) -> tuple[SQLCompiler, str, tuple[Any, ...]]:
        compiler = self._build().query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        return compiler, sql, tuple(params)

    def all(self, using: str = DEFAULT_DB_ALIAS, **values: Any) -> list[Any]:
        found = self._compiled.get(using)
        if found is None:
            with self._lock:
                found = self._compiled.get(using) or self._compile(using)
                self._compiled[using] = found
        compiler, sql, params = found
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(sql, _bind(params, connection, values))
            raw = cursor.fetchall()
        return _instances(compiler, raw, using)


def _instances(compiler: SQLCompiler, raw: list[Any], using: str) -> list[Any]:
    """What `ModelIterable` makes of a compiled query's rows (no annotations, no
    known related objects: `CompiledInstances` querysets have neither)."""
    klass_info, select = compiler.klass_info, compiler.select
    assert klass_info is not None
    model = klass_info["model"]
    fields = klass_info["select_fields"]
    start, end = fields[0], fields[-1] + 1
    init_list = [column[0].target.attname for column in select[start:end]]
    populators = get_related_populators(klass_info, select, using)
    objs = []
    for row in compiler.results_iter(results=[raw]):
        obj = model.from_db(using, init_list, row[start:end])
        for populator in populators:
            populator.populate(row, obj)
        objs.append(obj)
    return objs
