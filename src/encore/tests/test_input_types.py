"""Every input datetime of the API is `common.http.fields.Instant` (or its lenient twin).

The offset and year bounds are checked in one type; this walks every operation's
request models (path, query and body, nested schemas included) so a datetime field
declared without it fails here instead of in production.
"""

import types
from collections.abc import Iterator
from datetime import datetime
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import AfterValidator, AwareDatetime, BaseModel

from common.http.fields import check_storable
from encore.api import api


def _operations() -> Iterator[tuple[str, Any]]:
    for bound in api._get_bound_routers():
        for path, view in bound.path_operations.items():
            for operation in view.operations:
                yield f"{'/'.join(operation.methods)} {bound.prefix}{path}", operation


def _guarded(metadata: Any) -> bool:
    return any(isinstance(m, AfterValidator) and m.func is check_storable for m in metadata)


def _is_datetime(annotation: Any) -> bool:
    return annotation is AwareDatetime or (
        isinstance(annotation, type) and issubclass(annotation, datetime)
    )


def _unguarded(annotation: Any, where: str, guarded: bool, seen: set[type]) -> Iterator[str]:
    """Names of datetime leaves in `annotation` that no `check_storable` covers."""
    if get_origin(annotation) is Annotated:
        base, *metadata = get_args(annotation)
        yield from _unguarded(base, where, guarded or _guarded(metadata), seen)
    elif _is_datetime(annotation):
        if not guarded:
            yield where
    elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return
        seen.add(annotation)
        for name, field in annotation.model_fields.items():
            yield from _unguarded(
                field.annotation, f"{where}.{name}", _guarded(field.metadata), seen
            )
    elif get_origin(annotation) in (Union, types.UnionType, list, dict, tuple, set):
        for arg in get_args(annotation):
            yield from _unguarded(arg, where, guarded, seen)


def test_every_input_datetime_is_bounded_by_the_shared_type() -> None:
    missing = [
        field
        for route, operation in _operations()
        for model in operation.models
        for field in _unguarded(model, route, False, set())
    ]
    assert missing == []


def test_the_walk_finds_input_datetimes_at_all() -> None:
    """Guards the guard: the walk does reach the datetime fields it checks."""

    class Probe(BaseModel):
        plain: datetime
        optional: list[datetime | None]

    assert list(_unguarded(Probe, "probe", False, set())) == ["probe.plain", "probe.optional"]
    covered = [route for route, op in _operations() if "cancel-occurrence" in route]
    assert covered, "the operations walk found no route"
