"""The shape of a Stripe event, as far as Encore reads it.

A signed event comes from Stripe, but the signature only says who sent it, not that its
fields have the types the handlers read. Parsed here first, a field of the wrong type,
an id too long for its column or a NUL character (which PostgreSQL cannot store) is a
400 for the whole event, never an exception in a handler. Fields Encore does not read
are ignored; those it reads are optional, as Stripe sends them per kind of event.
"""

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from common.errors import InvalidInput


def _storable(value: str) -> str:
    if "\x00" in value:
        raise ValueError("contains a NUL character")
    return value


#: A Stripe id or short text, as a column of Encore keeps it.
Text = Annotated[str, Field(max_length=255), AfterValidator(_storable)]


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class StripeObject(_Read):
    """`data.object`: a Checkout Session, a charge or a dispute."""

    id: Text = ""
    metadata: dict[str, Any] | None = None
    payment_status: Text | None = None
    payment_intent: Text | None = None
    amount_refunded: Annotated[int, Field(ge=0)] | None = None
    status: Text | None = None
    reason: Text | None = None


class _Data(_Read):
    object: StripeObject


class StripeEvent(_Read):
    id: Annotated[Text, Field(min_length=1)]
    type: Annotated[Text, Field(max_length=64)] = ""
    account: Annotated[Text, Field(max_length=64)] | None = None
    data: _Data


def parse_event(body: Any) -> StripeEvent:
    """The event Encore reads, or InvalidInput (400) naming the fields that are not."""
    try:
        return StripeEvent.model_validate(body)
    except ValidationError as exc:
        errors: dict[str, list[str]] = {}
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"]) or "body"
            errors.setdefault(field, []).append(error["msg"])
        raise InvalidInput(errors, "The Stripe event does not have the expected shape.") from exc
