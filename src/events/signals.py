"""Model signals of the events app. Only one: a queue entry leaving takes its offer along.

Queue rows are deleted from many places (leave, admin delete, a registration, ad-hoc ORM
filters); the offer that entry held must not keep a seat reserved for nobody. The
conditional UPDATE only touches PENDING offers, so it is a no-op after a claim (the
offer is CLAIMED first) or a leave (EXPIRED first) — one of domain.md's two documented
single-statement exceptions to the lock order, since it only frees capacity.
"""

from typing import Any

from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone

from events.models import EventWaitList, WaitlistOffer


@receiver(post_delete, sender=EventWaitList, dispatch_uid="handle_waitlist_entry_deleted")
def handle_waitlist_entry_deleted(
    sender: type[EventWaitList], instance: EventWaitList, **_: Any
) -> None:
    from events.service import waitlist_service

    revoked = WaitlistOffer.objects.filter(
        event_id=instance.event_id,
        user_id=instance.user_id,
        status=WaitlistOffer.WaitlistOfferStatus.PENDING,
    ).update(
        status=WaitlistOffer.WaitlistOfferStatus.REVOKED,
        revoked_reason=WaitlistOffer.RevokedReason.ENTRY_DELETED,
        updated_at=timezone.now(),
    )
    if revoked:
        waitlist_service.enqueue_waitlist_processing(instance.event_id)
