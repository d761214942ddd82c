"""The context of every notification about an event, built in this one place.

`notifications.types` lists the keys each type must carry; these builders give every
event notification the same event keys (ids, name, link, start as ISO and as a human
time in the **event's** timezone, the organisation) and add the keys of one type. The
values are plain data (strings, lists), exactly as the notification row stores them.

Nothing here is in the recipient's language: times use `format_in_zone` (English, like
every other sender), so one context serves every recipient of a fan-out and is built
once; the zone (`event_timezone`, an occurrence's `timezone`) travels along so rendering
formats the times again in each recipient's language (`notifications.localized`).
Links come from `common.links` (the public origin, `settings.ENCORE_PUBLIC_URL`).
"""

from collections.abc import Sequence
from typing import Any

from common.links import event_url, series_url
from common.timezones import format_in_zone
from events.models import Event, EventSeries, Ticket
from events.utils.money import to_major

#: `event_service` tracks model attnames; notifications speak of "start", "end", "venue".
CHANGED_FIELD_NAMES = {"start": "start", "end": "end", "venue_id": "venue", "venue": "venue"}


def event_zone(event: Event) -> str:
    """The event's own timezone; an event always has one, the organisation's is a fallback."""
    return event.timezone or event.organization.timezone or "UTC"


def event_context(event: Event) -> dict[str, Any]:
    """The keys every notification about `event` carries (`event.organization` loaded)."""
    return {
        "event_id": str(event.pk),
        "event_name": event.name,
        "event_url": event_url(event.pk),
        "event_start": event.start.isoformat(),
        "event_start_formatted": format_in_zone(event.start, event_zone(event)),
        "event_timezone": event_zone(event),
        "organization_id": str(event.organization_id),
        "organization_name": event.organization.name,
    }


def event_cancelled_context(event: Event, message: str = "") -> dict[str, Any]:
    """`organiser_message`: what the organiser wrote to the attendees (may be empty)."""
    return {**event_context(event), "organiser_message": message}


def event_updated_context(event: Event, changed_fields: Sequence[str]) -> dict[str, Any]:
    """`changed_fields` as "start" / "end" / "venue", with the new end and venue to show.

    `event.venue` must be loaded (or empty): the templates show its name when there is one.
    """
    changed = list(dict.fromkeys(CHANGED_FIELD_NAMES.get(name, name) for name in changed_fields))
    return {
        **event_context(event),
        "changed_fields": changed,
        "event_end": event.end.isoformat(),
        "event_end_formatted": format_in_zone(event.end, event_zone(event)),
        "venue_name": event.venue.name if event.venue is not None else None,
    }


def tickets_context(event: Event, tickets: Sequence[Ticket]) -> dict[str, Any]:
    """One notification about several tickets of one person (a cart, a sweep).

    The type's own keys (`ticket_id`, `tier_name`, `ticket_status`) describe the first
    ticket, so the single-ticket templates read right; `tickets` lists them all
    (`ticket.tier` must be loaded).
    """
    if not tickets:
        raise ValueError("a ticket notification needs at least one ticket")
    items = [
        {
            "ticket_id": str(ticket.pk),
            "tier_name": ticket.tier.name,
            "holder_name": ticket.holder_name,
            "status": ticket.status,
            "price": str(ticket.tier.price),
            "fee": str(ticket.tier.fee) if ticket.tier.fee else "",
            "currency": ticket.tier.currency,
        }
        for ticket in tickets
    ]
    first = items[0]
    return {
        **event_context(event),
        "ticket_id": first["ticket_id"],
        "tier_name": first["tier_name"],
        "ticket_status": first["status"],
        "ticket_count": len(items),
        "tickets": items,
        "receipt": _receipt(tickets[0]),
    }


def _receipt(ticket: Ticket) -> dict[str, str] | None:
    """What was paid online (issue 14: receipts by e-mail), from the ticket's payment;
    `ticket.payment` must be loaded. None for tickets not paid through Stripe."""
    payment = ticket.payment if ticket.payment_id else None
    if payment is None or payment.paid_at is None:
        return None
    return {
        "amount": str(to_major(payment.amount, payment.currency)),
        "currency": payment.currency,
        "tax_rate": str(ticket.tier.tax_rate.normalize()) if ticket.tier.tax_rate else "",
        "paid_at": payment.paid_at.isoformat(),
        "reference": str(payment.pk),
    }


def rsvp_context(event: Event, status: str) -> dict[str, Any]:
    """`status`: the answer just given, "yes" | "no" | "maybe"."""
    return {**event_context(event), "status": str(status)}


def series_digest_context(series: EventSeries, events: Sequence[Event]) -> dict[str, Any]:
    """SERIES_EVENTS_GENERATED (docs/spec/seed-tables.md "Digest for drafts"): the series and each new
    occurrence, its start formatted in its own timezone (`series.organization` loaded)."""
    organization = series.organization
    return {
        "series_id": str(series.pk),
        "series_name": series.name,
        "series_url": series_url(organization.slug, series.slug),
        "organization_id": str(organization.pk),
        "organization_name": organization.name,
        "events_count": len(events),
        "occurrences": [
            {
                "event_id": str(event.pk),
                "name": event.name,
                "start": event.start.isoformat(),
                "start_formatted": format_in_zone(
                    event.start, event.timezone or organization.timezone
                ),
                "timezone": event.timezone or organization.timezone,
                "event_url": event_url(event.pk),
            }
            for event in events
        ],
    }
