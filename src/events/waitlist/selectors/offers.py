"""Reads behind /event-admin/{event_id}/waitlist-offers: the organiser's view of offers;
and what became of offers a member was told about (their inbox).

Scoped to the event in the path (another event's offer is simply not there) and with the
user the Offer schema shows, so a page costs one query whatever its length.
"""

import uuid
from collections.abc import Iterable
from datetime import datetime

from django.db.models import QuerySet

from events.models import WaitlistOffer

Status = WaitlistOffer.WaitlistOfferStatus
#: The outcomes people see, one word each: an EXPIRED offer with `declined_at` was handed
#: back ("declined", as the statistics count it), one without it lapsed ("expired").
LIVE, CLAIMED, DECLINED, EXPIRED, REVOKED = "live", "claimed", "declined", "expired", "revoked"


def offer_outcome(offer: WaitlistOffer, now: datetime) -> str:
    """What became of an offer; a PENDING one past its deadline has lapsed already,
    whether or not the sweep has written it down yet."""
    if offer.status == Status.PENDING:
        return LIVE if offer.expires_at > now else EXPIRED
    if offer.status == Status.EXPIRED and offer.declined_at is not None:
        return DECLINED
    outcomes: dict[str, str] = {Status.CLAIMED: CLAIMED, Status.REVOKED: REVOKED}
    return outcomes.get(offer.status, EXPIRED)


def outcomes_of_offers(
    user_id: uuid.UUID, offer_ids: Iterable[str], now: datetime
) -> dict[str, str]:
    """The outcome of each of the user's offers by id (text, as notification contexts
    carry it), in one query; none without ids, and nobody else's offers."""
    wanted = set()
    for offer_id in offer_ids:
        try:
            wanted.add(uuid.UUID(str(offer_id)))
        except ValueError:
            continue
    if not wanted:
        return {}
    offers = WaitlistOffer.objects.filter(pk__in=wanted, user_id=user_id).only(
        "id", "status", "declined_at", "expires_at"
    )
    return {str(offer.pk): offer_outcome(offer, now) for offer in offers}


def admin_offers(event_id: uuid.UUID, status: str | None = None) -> QuerySet[WaitlistOffer]:
    """The event's offers newest first (id breaks ties), optionally of one status."""
    offers = WaitlistOffer.objects.filter(event_id=event_id).select_related("user")
    if status:
        offers = offers.filter(status=status)
    return offers.order_by("-created_at", "-id")


def admin_offer(offer_id: uuid.UUID) -> WaitlistOffer:
    """One offer as the admin routes answer it, re-read after the service wrote it."""
    return WaitlistOffer.objects.select_related("user").get(pk=offer_id)
