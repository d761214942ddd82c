"""Tiers, tickets and payments, in one place.

Layers, top to bottom (import-linter contracts in `pyproject.toml`):

| module | holds |
|---|---|
| `controllers/` | `event_admin/tickets` (tiers, tickets, the box office), `event_public/checkout` (buying and giving back), `payments` (Stripe's webhook, the holder's refund, an organisation's Stripe account) |
| `tasks.py` | the Celery tasks: unpaid offline tickets and open online checkouts expire |
| `schemas/` | `ticket`, `payment` |
| `services/` | the write side: `batch_tickets/` (the checkout of a cart and box-office sales: the design's `BatchTicketService`), `payments/` (Stripe: checkout, settle, webhooks, refunds, expiry), `cancellation`, `ticket_admin`, `tiers` |
| `selectors/` | `tickets` |
| `errors.py` | errors of sales, cancellations, the box office and payments |
| `models/` | `TicketTier`, `Ticket`; `Payment`, `PaymentRefund`, `StripeConnection`, `StripeEvent` |
| `tests/` | the ticketing tests, the Stripe stub server |

The design's path `events.service.batch_ticket_service` stays as a thin re-export.
"""
