"""The waitlist: the queue (`EventWaitList`) and the time-bounded reservation (`WaitlistOffer`)."""

from django.conf import settings
from django.db import models

from common.models import TimeStampedModel
from events.models.event import Event


class EventWaitList(TimeStampedModel):
    """The queue: one row per (event, user); `created_at` defines FIFO order.

    `last_offer_expired_at` is set when the member let an offer lapse: such members are
    rotated behind everyone who never let one lapse (seed-tables "Rotation"), ordered by
    that time; NULL sorts first.
    """

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="waitlist")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="waitlist_entries"
    )
    last_offer_expired_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["event", "user"], name="unique_waitlist_entry")
        ]
        indexes = [
            # Serves "never rotated, FIFO" (last_offer_expired_at IS NULL) as an index range.
            models.Index(
                fields=["event", "last_offer_expired_at", "created_at", "id"],
                name="waitlist_selection_order",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} waiting for {self.event}"


class WaitlistOffer(TimeStampedModel):
    """A seat reserved for one waitlist member until `expires_at` (seed 000)."""

    class WaitlistOfferStatus(models.TextChoices):
        PENDING = "pending", "Pending"
        CLAIMED = "claimed", "Claimed"
        EXPIRED = "expired", "Expired"
        REVOKED = "revoked", "Revoked"

    class RevokedReason(models.TextChoices):
        """Only an organiser's revoke soft-skips the user (seed-tables decision)."""

        ORGANIZER = "organizer"
        EVENT_CANCELLED = "event_cancelled"
        WAITLIST_CLOSED = "waitlist_closed"
        ENTRY_DELETED = "entry_deleted"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="waitlist_offers")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="waitlist_offers"
    )
    status = models.CharField(
        max_length=16,
        choices=WaitlistOfferStatus.choices,
        default=WaitlistOfferStatus.PENDING,
        db_index=True,
    )
    expires_at = models.DateTimeField(db_index=True)
    batch_id = models.UUIDField(db_index=True)
    notified_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    is_cutoff_batch = models.BooleanField(default=False)
    revoked_reason = models.CharField(max_length=16, choices=RevokedReason.choices, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["event", "user"],
                condition=models.Q(status="pending"),
                name="unique_pending_waitlist_offer",
            )
        ]
        indexes = [
            models.Index(fields=["event", "user", "status"], name="offer_event_user_status"),
            models.Index(
                fields=["event", "status", "is_cutoff_batch", "expires_at"], name="offer_held_seats"
            ),
        ]

    def __str__(self) -> str:
        return f"offer {self.status} to {self.user_id} for {self.event_id}"
