"""Ticket sales: checkout of a cart and box-office sales (the waitlist design's `BatchTicketService`).

Split by concept: `capacity` (the locked check), `tickets` (writing tickets, leaving
the queue), `service` (the checkout flow).
"""

from events.service.batch_ticket_service.service import BatchTicketService, CartItem

__all__ = ["BatchTicketService", "CartItem"]
