"""The path docs/spec/waitlist-design.md names for `BatchTicketService`. Ticket sales live
in `events.ticketing.services.batch_tickets` (the ticketing feature's package); this
module re-exports its names, the same objects, not copies."""

from events.ticketing.services.batch_tickets import BatchTicketService, CartItem

__all__ = ["BatchTicketService", "CartItem"]
