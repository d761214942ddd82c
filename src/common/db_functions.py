"""Database functions Django lacks, rendered for both of Encore's databases (ADR 0004)."""

from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Func, UUIDField
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
