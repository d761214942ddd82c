"""Reads behind /event-admin/{event_id}/waitlist-offers: the organiser's view of offers.

Scoped to the event in the path (another event's offer is simply not there) and with the
user the Offer schema shows, so a page costs one query whatever its length.
"""

import uuid

from django.db.models import QuerySet

from events.models import WaitlistOffer


def admin_offers(event_id: uuid.UUID, status: str | None = None) -> QuerySet[WaitlistOffer]:
    """The event's offers newest first (id breaks ties), optionally of one status."""
    offers = WaitlistOffer.objects.filter(event_id=event_id).select_related("user")
    if status:
        offers = offers.filter(status=status)
    return offers.order_by("-created_at", "-id")


def admin_offer(offer_id: uuid.UUID) -> WaitlistOffer:
    """One offer as the admin routes answer it, re-read after the service wrote it."""
    return WaitlistOffer.objects.select_related("user").get(pk=offer_id)
