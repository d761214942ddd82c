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


_SCHEMA = WithJsonSchema({"type": "string", "format": "duration", "examples": ["PT2H"]})

#: A duration in a body the API writes (and in `WaitlistSettingsSchema`, read and
#: written): `PT2H` on the way out. One JSON schema in both directions, so a component
#: holding it is the same in input and output.
IsoDuration = Annotated[timedelta, PlainSerializer(_iso_duration, return_type=str), _SCHEMA]

#: A duration in a request body whose `model_dump()` feeds a service: a `timedelta`
#: there, not the text IsoDuration's serializer gives. That text was re-parsed by the
#: model field, which cannot read pydantic's years (`P5Y281D` for 2106 days): the value
#: stayed a str and the model's 1 h..7 d check raised a TypeError, a 500 instead of a 400.
IsoDurationInput = Annotated[timedelta, _SCHEMA]
