"""Ticket sales: checkout of a cart and box-office sales (the waitlist design's `BatchTicketService`).

Split by concept: `capacity` (the locked check), `tickets` (writing tickets, leaving
the queue), `service` (the checkout flow).
"""

from events.ticketing.services.batch_tickets.service import BatchTicketService, CartItem

__all__ = ["BatchTicketService", "CartItem"]
