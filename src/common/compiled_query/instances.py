"""Compiled statements that write or answer model instances (package doc; ADR 0006).

`RowsInsert`: a multi-row INSERT of instances made in Python; `CompiledInstances`: a
model queryset whose rows become instances, as the ORM makes them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]
from django.db.models.sql.subqueries import InsertQuery

from common.compiled_query.prepared import PreparedForms, execute


class RowsInsert:
    """A multi-row `INSERT` of model instances, its SQL compiled once per shape.

    Why: a lottery pass writes its draw records with its offers in one statement
    (docs/spec/quality.md a2, a3; the offers come from columns, `ColumnsInsert`), and Django
    compiles that INSERT anew for every batch: the
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
    (`events.core.services.locks.lock_event`) is a `select_for_update().select_related()`
    whose compilation costs Django more than the database spends answering it, on every
    pass (docs/spec/quality.md a3; figures in docs/bench.md). The SQL is compiled once
    (the first call: inside a transaction when it locks); each call then runs it with its
    `Param` values and turns the rows into instances with the same steps Django's model
    iterable takes: the compiler's converters, `Model.from_db`, the related populators.
    Those are Django internals, used here as `ModelIterable` uses them (Django is pinned
    to 5.2); `test_compiled_query.py` compares the instances with the ORM's. The kept
    compiler belongs to the connection that compiled it; other threads use it only for
    its select list and its converters, which read that backend's settings (its
    operations, its time zone), never its socket: each call runs on its own connection.
    """

    def __init__(
        self, build: Callable[[], QuerySet[Any, Any]], *, prepared_as: str | None = None
    ) -> None:
        self._build = build
        self._compiled: dict[str, _Shape] = {}
        self._forms = PreparedForms(prepared_as)
        self._lock = threading.Lock()

    def all(self, using: str = DEFAULT_DB_ALIAS, **values: Any) -> list[Any]:
        found = self._compiled.get(using)
        if found is None:
            with self._lock:
                found = self._compiled.get(using) or _Shape(self._build(), using)
                self._compiled[using] = found
        connection = connections[using]
        form = self._forms.get(using, found.sql, found.params, connection)
        with connection.cursor() as cursor:
            execute(cursor, connection, form, sql=found.sql, params=found.params, values=values)
            raw = cursor.fetchall()
        return found.instances(raw, using)


class _Shape:
    """A compiled model query and what turning its rows into instances needs, worked out
    once: the steps `ModelIterable` takes on each call (the converters of every column,
    the related populators, where each annotation's column is) depend only on the query.
    No known related objects: `CompiledInstances` querysets have none."""

    def __init__(self, queryset: QuerySet[Any, Any], using: str) -> None:
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        self.sql, self.params = sql, tuple(params)
        self.compiler = compiler
        klass_info, select = compiler.klass_info, compiler.select
        assert klass_info is not None
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [column[0].target.attname for column in select[self.start : self.end]]
        self.populators = get_related_populators(klass_info, select, using)
        self.converters = compiler.get_converters([s[0] for s in select[: compiler.col_count]])
        self.annotations = list(compiler.annotation_col_map.items())

    def instances(self, raw: list[Any], using: str) -> list[Any]:
        rows = self.compiler.apply_converters(raw, self.converters) if self.converters else raw
        objs = []
        for row in rows:
            obj = self.model.from_db(using, self.init_list, row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            for name, position in self.annotations:
                setattr(obj, name, row[position])
            objs.append(obj)
        return objs
