"""The waitlist: the queue (`EventWaitList`) and the time-bounded reservation (`WaitlistOffer`).

Both tables are written in bulk by the hourly sweep (every lapsed offer, every member it
rotates), and a row update touches every index of its table: so each table keeps only
the indexes its queries use. Lookups by event go through the composite indexes (the
event column first), so the foreign keys and `created_at` carry no index of their own.
"""

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import BooleanField, ExpressionWrapper, Q

from common.models import TimeStampedModel
from events.core.models.event import WAITLIST_PARTY_MAX, Event
from events.ticketing.models.ticket import TicketTier

#: For EventWaitList rows: has the member let an offer lapse? False (never rotated) sorts
#: first. The selection order starts with it; the `waitlist_selection_order` index too.
ROTATED = ExpressionWrapper(Q(last_offer_expired_at__isnull=False), output_field=BooleanField())
#: The queue's two orders after the event (and, for a tier's own queue, the tier): the
#: selection order (FIFO, rotated members last) and the lottery's ring.
SELECTION_KEY = (ROTATED, "last_offer_expired_at", "created_at", "id")
RING_KEY = (ROTATED, "token", "id")
#: The rows of the tiers' own queues, the only ones their partial indexes hold.
TIERED = Q(tier__isnull=False)


def new_lottery_ticket() -> int:
    """A member's draw ticket: uniform on [0, 2**63), fixed at join (ADR 0018)."""
    return secrets.randbits(63)


def party_seats_field() -> models.PositiveSmallIntegerField:
    """A party's seats, 1..WAITLIST_PARTY_MAX: what an entry queues for and its offer holds."""
    return models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(WAITLIST_PARTY_MAX)]
    )


def waitlist_tier_field(related_name: str) -> models.ForeignKey:
    """The tier an entry waits for, or an offer holds; NULL = any seat of the event."""
    return models.ForeignKey(
        TicketTier,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name=related_name,
        db_index=False,
    )


class EventWaitList(TimeStampedModel):
    """The queue: one row per (event, user); `created_at` defines FIFO order.

    `last_offer_expired_at` is set when the member let an offer lapse: such members are
    rotated behind everyone who never let one lapse (seed-tables "Rotation"), ordered by
    that time; NULL sorts first.
    """

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="waitlist", db_index=False
    )
    #: No index of its own: `unique_waitlist_entry` leads with the user (see Meta).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="waitlist_entries",
        db_index=False,
    )
    last_offer_expired_at = models.DateTimeField(null=True, blank=True, editable=False)
    #: Seats the member queues for (their party), 1..the event's `waitlist_max_party_size`.
    party_size = party_seats_field()
    #: The tier the member waits for on a ticketed event; NULL = any seat of the event.
    tier = waitlist_tier_field("waitlist_entries")
    #: Opaque per-entry value: the member's lottery ticket, shown to them and in draws.
    token = models.BigIntegerField(default=new_lottery_ticket, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)  # ordered by waitlist_selection_order

    class Meta:
        ordering = ["created_at"]
        constraints = [
            # User first: it is also the index of a user's entries (their page, their
            # data export, their departure), so the foreign key needs none of its own and
            # the sweep's rotation writes one index fewer per member; a lookup of one
            # (event, user) pair reads it as well either way round.
            models.UniqueConstraint(fields=["user", "event"], name="unique_waitlist_entry")
        ]
        indexes = [
            # The selection order itself (never rotated first, FIFO; then by expiry), so
            # the head of the queue, any shape, is read straight off the index.
            models.Index("event", *SELECTION_KEY, name="waitlist_selection_order"),
            # The lottery's ring: a draw reads the next tickets after its start point.
            models.Index("event", *RING_KEY, name="waitlist_lottery_ring"),
            # A tier's own queue, in the same two orders. Read through the two above, a
            # tier's head would be found by walking every member ahead of it queued for
            # anything else; these put each tier's members side by side. Partial, so a
            # member queued for the whole event (every member of an RSVP event) writes no
            # entry here: the sweep's rotation costs those none (docs/spec/quality.md b1).
            models.Index(
                "event", "tier", *SELECTION_KEY, name="waitlist_tier_order", condition=TIERED
            ),
            models.Index("event", "tier", *RING_KEY, name="waitlist_tier_ring", condition=TIERED),
        ]

    def __str__(self) -> str:
        return f"{self.user} waiting for {self.event}"


class WaitlistOffer(TimeStampedModel):
    """A seat reserved for one waitlist member until `expires_at` (docs/spec/waitlist-design.md)."""

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

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="waitlist_offers", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="waitlist_offers"
    )
    status = models.CharField(
        max_length=16, choices=WaitlistOfferStatus.choices, default=WaitlistOfferStatus.PENDING
    )
    expires_at = models.DateTimeField()
    batch_id = models.UUIDField()
    notified_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    is_cutoff_batch = models.BooleanField(default=False)
    #: Seats the offer holds: the member's party size when it was made.
    seats = party_seats_field()
    #: The tier a per-tier offer is for; NULL = any tier (or an RSVP event).
    tier = waitlist_tier_field("waitlist_offers")
    #: Set when the holder declined (EXPIRED with `declined_at`): they stay queued.
    declined_at = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.CharField(max_length=16, choices=RevokedReason.choices, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

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
            # A user's offers for an event (any status), and every lookup by event.
            models.Index(fields=["event", "user", "status"], name="offer_event_user_status"),
            # Only PENDING rows: what holds seats, and what the sweep expires. An offer
            # leaving PENDING adds no entry to these (nor to the unique constraint).
            models.Index(
                fields=["event", "is_cutoff_batch", "expires_at"],
                condition=models.Q(status="pending"),
                name="offer_held_seats",
            ),
            models.Index(
                fields=["expires_at"],
                condition=models.Q(status="pending"),
                name="offer_pending_expiry",
            ),
        ]

    def __str__(self) -> str:
        return f"offer {self.status} to {self.user_id} for {self.event_id}"
