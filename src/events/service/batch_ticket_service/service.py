"""The module docs/spec/waitlist-design.md names for the checkout flow
(`batch_ticket_service/service.py`); it lives in
`events.ticketing.services.batch_tickets.service`."""

from events.ticketing.services.batch_tickets.service import BatchTicketService, CartItem

__all__ = ["BatchTicketService", "CartItem"]
