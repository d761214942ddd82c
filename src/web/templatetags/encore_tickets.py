"""Template filters for offline payments: a ticket's payment reference and its price.

`{{ ticket.pk|payment_reference }}` → "3F2A9C1B"; `{{ ticket.tier|ticket_price }}` → the
price with the booking fee. Both only format what `events.ticketing.selectors.payment_due`
derives, so a page and the organiser's "Find ticket" agree on the reference.
"""

import uuid
from decimal import Decimal

from django import template

from events.models import TicketTier
from events.ticketing.selectors import payment_due

register = template.Library()


@register.filter
def payment_reference(ticket_id: uuid.UUID | str) -> str:
    return payment_due.payment_reference(ticket_id)


@register.filter
def ticket_price(tier: TicketTier) -> Decimal:
    return payment_due.ticket_price(tier)
