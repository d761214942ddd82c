"""The waitlist's notifications: the offer (time-critical), the lapsed-hold notice and
the notice of an offer an organiser revoked.

Sent from Celery tasks after commit, never under a lock. The offer's notification carries
the offer's expiry as its "useful until", and `offer_still_live` answers the
notifications app's `notification_still_wanted`: a failed offer e-mail is sent again while
the offer is live, never after (docs/architecture/notifications.md). Every time shown is in the
**event's** timezone (docs/spec/domain.md fix); the notifications app gets plain context only.
"""

import logging
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from common import dispatch
from common.links import decline_offer_url
from common.timezones import format_in_zone
from events.core.services.notification_context import event_context, event_zone
from events.models import Event, WaitlistOffer
from events.waitlist.selectors.queue import live_offers
from events.waitlist.services.useful_offers import offers_are_useful
from notifications.models import NotificationType
from notifications.service.formatting import humanize_time_remaining
from notifications.signals import notification_requested

logger = logging.getLogger("encore.waitlist")

PENDING = WaitlistOffer.WaitlistOfferStatus.PENDING
REVOKED = WaitlistOffer.WaitlistOfferStatus.REVOKED
#: How long an offer's notification task may take before it counts as lost.
RESEND_AFTER = timedelta(minutes=10)


def offer_context(offer: WaitlistOffer, now: datetime) -> dict[str, Any]:
    """seed-tables "Notification context of WAITLIST_SPOT_AVAILABLE"."""
    zone = event_zone(offer.event)
    return {
        **event_context(offer.event),
        "offer_id": str(offer.pk),
        "expires_at": offer.expires_at.isoformat(),
        "expires_at_formatted": format_in_zone(offer.expires_at, zone),
        "time_remaining_formatted": humanize_time_remaining(offer.expires_at - now),
        "time_remaining_seconds": max(0, int((offer.expires_at - now).total_seconds())),
        "is_cutoff_batch": offer.is_cutoff_batch,
        # Declining hands the seat on at once instead of at the deadline (ADR 0019).
        "decline_url": decline_offer_url(offer.event_id),
    }


def send_offer_notification(offer_id: uuid.UUID) -> bool:
    """WAITLIST_SPOT_AVAILABLE once per issue of a live offer; False when nothing is sent.

    The offer is claimed by stamping `notified_at` in the transaction that requests the
    notification, so a task that runs twice (a resend racing a late original) sends
    once, and a failing notification leaves the offer unstamped for the next resend.
    Reactivating an offer clears the stamp: a new issue, a new notification.
    """
    now = timezone.now()
    with transaction.atomic():
        claimed = WaitlistOffer.objects.filter(
            pk=offer_id, status=PENDING, expires_at__gt=now, notified_at__isnull=True
        ).update(notified_at=now)
        if not claimed:
            return False
        offer = WaitlistOffer.objects.select_related("user", "event__organization").get(pk=offer_id)
        notification_requested.send(
            sender=WaitlistOffer,
            notification_type=NotificationType.WAITLIST_SPOT_AVAILABLE,
            user=offer.user,
            context=offer_context(offer, now),
            # Useful until the offer lapses; withdrawn sooner by `offer_still_live`.
            expires_at=offer.expires_at,
        )
    return True


def offer_still_live(offer_id: object, now: datetime) -> bool:
    """Is the offer a WAITLIST_SPOT_AVAILABLE notification announces still claimable? Asked
    by the notifications app (`notification_still_wanted`) before each send of it, so a
    retry or revival after a claim, decline, revocation or lapse sends nothing."""
    try:
        pk = uuid.UUID(str(offer_id))
    except ValueError:
        return False
    return WaitlistOffer.objects.filter(pk=pk, status=PENDING, expires_at__gt=now).exists()


def lost_offer_notifications(now: datetime, after: timedelta = RESEND_AFTER) -> list[uuid.UUID]:
    """Live offers still unannounced `after` they were issued: their task was lost (the
    broker was down at commit, a worker died). The resend job re-dispatches them; a task
    merely running late is harmless, the claim above sends once. After the broker lost
    its messages, none is merely late: `after` is then zero."""
    return list(
        live_offers(now)
        .filter(notified_at__isnull=True, updated_at__lte=now - after)
        .values_list("pk", flat=True)
    )


def send_offer_expired_notifications(event_id: uuid.UUID, expired_at: datetime) -> int:
    """WAITLIST_OFFER_EXPIRED to every user whose offer for the event lapsed in that sweep.

    The notice says "you are back in the queue and will hear from us": it goes out only
    while the event can still make offers. An offer that lapsed as the event started
    (every cutoff offer does) or as RSVPs closed gets no notice: nothing can follow it.
    """
    event = Event.objects.select_related("venue").filter(pk=event_id).first()
    if event is None or not offers_are_useful(event, timezone.now()):
        return 0
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


def notify_offer_revoked_on_commit(offer_id: uuid.UUID) -> None:
    """Once the organiser's revoke commits, tell the member (in this process: one person,
    one notification, like a ticket's cancellation); a rolled-back revoke tells nobody."""
    dispatch.call_after_commit(
        "waitlist offer revoked notice",
        lambda: send_offer_revoked_notification(offer_id),
        notification_type=NotificationType.WAITLIST_OFFER_REVOKED,
    )


def send_offer_revoked_notification(offer_id: uuid.UUID) -> bool:
    """WAITLIST_OFFER_REVOKED to the holder of an offer an organiser revoked; False when
    the offer is no longer revoked by an organiser (reactivated meanwhile): the member
    then holds a live offer again and its own notification says so."""
    offer = (
        WaitlistOffer.objects.select_related("user", "event__organization")
        .filter(pk=offer_id, status=REVOKED, revoked_reason=WaitlistOffer.RevokedReason.ORGANIZER)
        .first()
    )
    if offer is None:
        return False
    notification_requested.send(
        sender=WaitlistOffer,
        notification_type=NotificationType.WAITLIST_OFFER_REVOKED,
        user=offer.user,
        context={**event_context(offer.event), "offer_id": str(offer.pk)},
    )
    return True


def resend_lost_offer_notifications(
    now: datetime, after: timedelta = RESEND_AFTER
) -> list[uuid.UUID]:
    """The resend job: one notification task again for each offer `lost_offer_notifications`
    finds; returns those offers."""
    lost = lost_offer_notifications(now, after)
    for offer_id in lost:
        dispatch.now("events.send_waitlist_offer_notification", str(offer_id))
    return lost
