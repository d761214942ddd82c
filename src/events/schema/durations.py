"""Durations in every body as api.md writes them: compact ISO 8601 (`PT2H`, `P7D`).

Without this, the router's JSON encoder (Django's) would write `P0DT02H00M00S` for the
same value; input accepts either form.
"""

from datetime import timedelta
from typing import Annotated

from pydantic import PlainSerializer, TypeAdapter, WithJsonSchema

_DURATION = TypeAdapter(timedelta)


def _iso_duration(value: timedelta) -> str:
    text: str = _DURATION.dump_python(value, mode="json")
    return text


#: One JSON schema for input and output, so the component holding it is the same in both.
IsoDuration = Annotated[
    timedelta,
    PlainSerializer(_iso_duration, return_type=str),
    WithJsonSchema({"type": "string", "format": "duration", "examples": ["PT2H"]}),
]
