"""The status choices of the API bodies and parameters, each under a name of its own.

`Event.Status`, `EventRSVP.Status` and `Ticket.Status` are all classes called `Status`,
and ninja files every enum in the OpenAPI components by bare class name, so the three
replaced one another there and a route was documented with another model's statuses
(ADR 0010). These aliases document each one inline under a distinct title; validation
still yields the model's own choice.
"""

from typing import Annotated

from common.openapi import inline_enum
from events.models import Event, EventRSVP, Ticket

EventStatus = Annotated[Event.Status, inline_enum(Event.Status, "EventStatus")]
RSVPStatus = Annotated[EventRSVP.Status, inline_enum(EventRSVP.Status, "RSVPStatus")]
TicketStatus = Annotated[Ticket.Status, inline_enum(Ticket.Status, "TicketStatus")]
