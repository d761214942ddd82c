"""The waitlist's notifications: the offer (time-critical) and the lapsed-hold notice.

Sent from Celery tasks after commit, never under a lock. Every time shown is in the
**event's** timezone (domain.md fix); the notifications app gets plain context only.
"""

import logging
import uuid
from datetime import datetime
from typing import Any

from django.utils import timezone

from common.timezones import format_in_zone
from events.models import WaitlistOffer
from events.service.notification_context import event_context, event_zone
from notifications.models import NotificationType
from notifications.service.formatting import humanize_time_remaining
from notifications.signals import notification_requested

logger = logging.getLogger("encore.waitlist")

PENDING = WaitlistOffer.WaitlistOfferStatus.PENDING


def offer_context(offer: WaitlistOffer, now: datetime) -> dict[str, Any]:
    """seed-tables "Notification context of WAITLIST_SPOT_AVAILABLE"."""
    zone = event_zone(offer.event)
    return {
        **event_context(offer.event),
        "offer_id": str(offer.pk),
        "expires_at": offer.expires_at.isoformat(),
        "expires_at_formatted": format_in_zone(offer.expires_at, zone),
        "time_remaining_formatted": humanize_time_remaining(offer.expires_at - now),
        "is_cutoff_batch": offer.is_cutoff_batch,
    }


def send_offer_notification(offer_id: uuid.UUID) -> bool:
    """WAITLIST_SPOT_AVAILABLE for a live offer; skipped (False) when it no longer is."""
    offer = (
        WaitlistOffer.objects.select_related("user", "event__organization")
        .filter(pk=offer_id)
        .first()
    )
    now = timezone.now()
    if offer is None or offer.status != PENDING or offer.expires_at <= now:
        return False
    notification_requested.send(
        sender=WaitlistOffer,
        notification_type=NotificationType.WAITLIST_SPOT_AVAILABLE,
        user=offer.user,
        context=offer_context(offer, now),
    )
    WaitlistOffer.objects.filter(pk=offer.pk).update(notified_at=now)
    return True


def send_offer_expired_notifications(event_id: uuid.UUID, expired_at: datetime) -> int:
    """WAITLIST_OFFER_EXPIRED to every user whose offer for the event lapsed in that sweep."""
    offers = WaitlistOffer.objects.select_related("user", "event__organization").filter(
        event_id=event_id, status=WaitlistOffer.WaitlistOfferStatus.EXPIRED, updated_at=expired_at
    )
    sent = 0
    for offer in offers:
        notification_requested.send(
            sender=WaitlistOffer,
            notification_type=NotificationType.WAITLIST_OFFER_EXPIRED,
            user=offer.user,
            context={**event_context(offer.event), "offer_id": str(offer.pk)},
        )
        sent += 1
    return sent
