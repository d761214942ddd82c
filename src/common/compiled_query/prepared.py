"""Server-side prepared statements for the hottest compiled statements (PostgreSQL; ADR 0028).

Why: the eligibility context's read nests a dozen correlated subqueries. PostgreSQL plans
it afresh on every execution (several times what answering it takes: docs/bench.md), and
psycopg re-parses its 5,000 characters and 50-odd parameters on the client each time,
because statements that long are past its parse cache. Every claim, status check and
event page pays both, and in a claim race they are CPU that all other claimers wait for
(docs/spec/quality.md e1). Prepared once per connection, an execution is a short `EXECUTE` carrying
only the slot values, and Encore's connections run prepared statements on their generic
plan (`plan_cache_mode = force_generic_plan`, settings/database.py), so the planning goes
too: once per connection instead of once per execution. A statement whose best plan
depends on its values must therefore not ask for this (ADR 0028).

Only statements that ask for it (`prepared_as=`) take this path: their SQL then shows up
in logs and captured queries as `EXECUTE encore_<label>_<hash>(...)`. The name carries a
hash of the SQL, so a statement whose SQL changes is a new name.

The `PREPARE` runs on the raw connection, outside Django's cursor wrappers: it is the
session's bookkeeping, not a query of the request, so a query count or a captured
statement list is the same on a connection's first use and on its hundredth. A `PREPARE`
is not transactional (a rollback of the transaction it ran in keeps it), so the record of
what a connection has prepared stays true across rollbacks; it is kept per raw connection,
and a reconnect starts a fresh record. SQLite has no prepared statements of this kind and
runs the SQL as it is.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field

#: Django's SQL escapes a literal % as %% and marks each parameter %s.
_MARKS = re.compile(r"%%|%s")
#: Prepared names are identifiers: lower-case letters, digits and underscores.
_LABEL = re.compile(r"[a-z][a-z0-9_]{0,40}")
_EXECUTE = re.compile(r"EXECUTE (encore_[a-z0-9_]+)\b")
_END = object()
#: Every prepared statement's SQL by name, for `expanded`.
_BODIES: dict[str, str] = {}


@dataclass(frozen=True)
class Slot:
    """Where a `Param`'s value goes in a compiled parameter list."""

    name: str
    field: Field[Any, Any]

    def __str__(self) -> str:
        """A lookup that rewrites its value as text (`iexact` on SQLite escapes it for
        LIKE) would otherwise send this placeholder's text as the value, silently."""
        raise TypeError(f"Param {self.name!r} used where the ORM rewrites values in Python")


@dataclass(frozen=True)
class PreparedForm:
    """A compiled statement as a named prepared statement."""

    name: str
    #: `PREPARE <name> (<types>) AS <the SQL with $n for slots and literals for constants>`.
    prepare: str
    #: `EXECUTE <name>(%s, ...)`, one %s per distinct slot.
    execute: str
    #: The slots, in the order of their $n.
    slots: tuple[Slot, ...]


def prepared_form(
    label: str, sql: str, params: Sequence[Any], connection: BaseDatabaseWrapper
) -> PreparedForm:
    """Turn Django's SQL and its parameter template into a prepared statement.

    `params` holds constants and `Slot`s; a slot used several times (the user in a
    dozen subqueries) is one $n, declared with its field's column type so the server
    never has to guess it.
    """
    if not _LABEL.fullmatch(label):
        raise ValueError(f"prepared_as must be a lower-case identifier, not {label!r}")
    order: dict[str, Slot] = {}
    types: list[str] = []
    remaining = iter(params)

    def place(mark: re.Match[str]) -> str:
        if mark.group() == "%%":
            return "%"
        param = next(remaining)
        if not isinstance(param, Slot):
            literal: str = connection.ops.compose_sql("%s", [param])  # type: ignore[attr-defined]
            return literal
        if param.name not in order:
            order[param.name] = param
            types.append(param.field.db_type(connection) or "unknown")
        return f"${list(order).index(param.name) + 1}"

    body = _MARKS.sub(place, sql)
    if next(remaining, _END) is not _END:
        raise ValueError("the SQL has fewer placeholders than parameters")
    digest = hashlib.sha1(body.encode(), usedforsecurity=False).hexdigest()[:12]
    name = f"encore_{label}_{digest}"
    _BODIES[name] = body
    declared = f" ({', '.join(types)})" if types else ""
    marks = ", ".join(["%s"] * len(order))
    return PreparedForm(
        name=name,
        prepare=f"PREPARE {name}{declared} AS {body}",
        execute=f"EXECUTE {name}({marks})" if order else f"EXECUTE {name}",
        slots=tuple(order.values()),
    )


def expanded(sql: str) -> str:
    """A captured statement as the server runs it: an `EXECUTE` of one of ours becomes
    the prepared SQL (with $n for its slots); anything else is returned as it is. For
    tests and logs that read statements (which table, which lock, in what order)."""
    found = _EXECUTE.match(sql)
    if found is None or found.group(1) not in _BODIES:
        return sql
    return _BODIES[found.group(1)]


class PreparedForms:
    """A statement's prepared form per database alias, made on first use; None where the
    statement does not ask for one or the database is not PostgreSQL."""

    def __init__(self, label: str | None) -> None:
        self._label = label
        self._forms: dict[str, PreparedForm] = {}

    def get(
        self, using: str, sql: str, params: Sequence[Any], connection: BaseDatabaseWrapper
    ) -> PreparedForm | None:
        if self._label is None or connection.vendor != "postgresql":
            return None
        form = self._forms.get(using)
        if form is None:
            form = prepared_form(self._label, sql, params, connection)
            self._forms[using] = form
        return form


def execute(
    cursor: Any,
    connection: BaseDatabaseWrapper,
    form: PreparedForm | None,
    *,
    sql: str,
    params: Sequence[Any],
    values: Mapping[str, Any],
) -> None:
    """Run a compiled statement on Django's `cursor`: prepared when `form` is given, else
    as its SQL with the slots filled in."""
    if form is not None:
        execute_prepared(cursor, connection, form, values)
    else:
        cursor.execute(sql, bind(params, connection, values))


def bind(
    params: Sequence[Any], connection: BaseDatabaseWrapper, values: Mapping[str, Any]
) -> list[Any]:
    """The parameter list with each slot's value prepared for the database."""
    _require(params, values)
    return [
        p.field.get_db_prep_value(values[p.name], connection) if isinstance(p, Slot) else p
        for p in params
    ]


def _require(slots: Sequence[Any], values: Mapping[str, Any]) -> None:
    missing = {p.name for p in slots if isinstance(p, Slot)} - set(values)
    if missing:
        raise TypeError(f"missing values for {sorted(missing)}")


def execute_prepared(
    cursor: Any,
    connection: BaseDatabaseWrapper,
    form: PreparedForm,
    values: Mapping[str, Any],
) -> None:
    """Run `form` with these slot values on Django's `cursor`, preparing it on this
    connection first if it has not been yet."""
    _require(form.slots, values)
    raw = connection.connection
    record: tuple[Any, set[str]] | None = connection.__dict__.get("_encore_prepared")
    if record is None or record[0] is not raw:
        record = (raw, set())
        connection.__dict__["_encore_prepared"] = record
    if form.name not in record[1]:
        with connection.wrap_database_errors:
            raw.execute(form.prepare)
        record[1].add(form.name)
    cursor.execute(
        form.execute,
        [slot.field.get_db_prep_value(values[slot.name], connection) for slot in form.slots],
    )
