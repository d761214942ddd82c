"""Database functions Django lacks, rendered for both of Encore's databases (ADR 0004)."""

import json
import uuid
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import BooleanField, Expression, F, Field, Func, UUIDField
from django.db.models.sql.compiler import SQLCompiler

#: 32 hex digits laid out as a version-4 UUID: 12 random, "4", 3 random, the variant
#: (8, 9, a or b), 15 random. Each piece draws its own randomness; SQLite stores UUIDs
#: as 32 hex characters (Django's UUIDField without a native type).
_SQLITE_UUID4 = (
    "lower(hex(randomblob(6)) || '4' || substr(hex(randomblob(2)), 2)"
    " || substr('89ab', 1 + (random() & 3), 1)"
    " || substr(hex(randomblob(2)), 2) || hex(randomblob(6)))"
)


class RandomUUID(Func):
    """A fresh random (version 4) UUID per row, made by the database.

    For rows the database writes from a query (INSERT ... SELECT), whose keys Python
    never sees before the insert. PostgreSQL's `gen_random_uuid()` (core since 13);
    SQLite has no such function, so it gets the expression above.
    """

    function = "gen_random_uuid"
    arity = 0
    output_field = UUIDField()

    def as_sqlite(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any
    ) -> Any:
        return super().as_sql(compiler, connection, template=_SQLITE_UUID4, **extra_context)


class UUIDListField(Field):
    """The type of a parameter that is a list of UUIDs (`AmongIds`): a `uuid[]` array on
    PostgreSQL, a JSON array of the 32-hex-digit texts SQLite stores UUIDs as."""

    def get_db_prep_value(
        self, value: Any, connection: BaseDatabaseWrapper, prepared: bool = False
    ) -> Any:
        ids = [item if isinstance(item, uuid.UUID) else uuid.UUID(str(item)) for item in value]
        if connection.vendor == "postgresql":
            return ids
        return json.dumps([item.hex for item in ids])


class AmongIds(Expression):
    """A condition: `column` is one of the UUIDs bound to the `Param` named `name`.

    For a compiled statement (ADR 0006) whose list of ids changes from call to call: an
    `IN (%s, %s, ...)` would change the statement's shape with the list's length.
    PostgreSQL compares with `= ANY(array)`; SQLite reads the JSON array with `json_each`.
    """

    output_field = BooleanField()
    conditional = True

    def __init__(self, column: str, name: str) -> None:
        super().__init__()
        # Imported here: compiled_query's Param is the one placeholder type, and that
        # module needs nothing from this one.
        from common.compiled_query import Param

        self.column: Any = F(column)
        self.param: Any = Param(name, UUIDListField())

    def get_source_expressions(self) -> list[Any]:
        return [self.column, self.param]

    def set_source_expressions(self, exprs: Any) -> None:
        self.column, self.param = exprs

    def as_sql(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any
    ) -> Any:
        column, column_params = compiler.compile(self.column)
        param, param_params = compiler.compile(self.param)
        return f"{column} = ANY({param})", [*column_params, *param_params]

    def as_sqlite(
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any
    ) -> Any:
        column, column_params = compiler.compile(self.column)
        param, param_params = compiler.compile(self.param)
        return f"{column} IN (SELECT value FROM json_each({param}))", [
            *column_params,
            *param_params,
        ]
