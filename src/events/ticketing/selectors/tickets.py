"""Reads about an event's tiers and tickets for the admin routes."""

from django.db.models import QuerySet

from events.models import Event, Ticket, TicketTier


def event_tickets(event: Event, status: str | None = None) -> QuerySet[Ticket]:
    """The event's tickets, oldest first (stable pages), with tier and holder loaded."""
    tickets = Ticket.objects.filter(event=event).select_related("tier", "user", "payment")
    if status:
        tickets = tickets.filter(status=status)
    return tickets.order_by("created_at", "pk")


def event_tiers(event: Event) -> QuerySet[TicketTier]:
    return TicketTier.objects.filter(event=event).order_by("price", "name", "pk")
