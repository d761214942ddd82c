"""Statements described with the ORM, compiled to SQL once per process, run with fresh values.

Why: a few hot paths (the eligibility context, the waitlist's processing pass) read
through querysets that nest a dozen correlated subqueries. Django rebuilds and
recompiles such a queryset on every call, and that costs several times what the
database spends answering it (docs/spec/quality.md rows a1 and d1). A `CompiledQuery` keeps the
ORM as the one description of the statement (the same selectors, the same expressions,
the same tests) but compiles it once per database alias; between executions only its
`Param` slots change. See ADR 0006.

What may change between executions is only what a `Param` stands for: the statement's
shape (which annotations, which ordering) is fixed when it is first compiled, so a
variant shape is a second `CompiledQuery`.

The hottest statements also skip the database's planning: with `prepared_as=<label>`
they are prepared once per PostgreSQL connection and run as `EXECUTE` (`prepared.py`,
ADR 0028); `expanded` shows a captured `EXECUTE` as its SQL. Rows made in Python are
written by `RowsInsert` (instances) or `ColumnsInsert` (one array per differing column).
"""

from common.compiled_query.columns import ColumnsInsert
from common.compiled_query.instances import CompiledInstances, RowsInsert
from common.compiled_query.prepared import expanded
from common.compiled_query.statements import (
    CompiledInsert,
    CompiledQuery,
    CompiledWrite,
    Param,
    row_as_dict,
    row_converters,
)

__all__ = [
    "ColumnsInsert",
    "CompiledInsert",
    "CompiledInstances",
    "CompiledQuery",
    "CompiledWrite",
    "Param",
    "RowsInsert",
    "expanded",
    "row_as_dict",
    "row_converters",
]
