"""What the waitlist keeps for later: each lottery draw, and the queue's length over time.

Neither is read by the waitlist's own decisions; both exist so people can check them.
A draw record lets a member (or the organiser) recompute a lottery batch from its seed
(ADR 0018); the queue-length samples feed the organiser's waitlist statistics.
"""

from django.db import models

from common.models import TimeStampedModel
from events.core.models.event import Event
from events.ticketing.models.ticket import TicketTier


class WaitlistDraw(TimeStampedModel):
    """One lottery batch: its seed, the published algorithm, what it saw and what it chose.

    `eligible` and `selected` hold entry tokens (`EventWaitList.token`, as strings), never
    user ids, so a member can find themselves without learning who the others are.
    """

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="waitlist_draws", db_index=False
    )
    batch_id = models.UUIDField(unique=True)
    tier = models.ForeignKey(
        TicketTier, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    drawn_at = models.DateTimeField()
    seed = models.CharField(max_length=64)
    algorithm = models.CharField(max_length=64)
    #: What the algorithm was given besides the seed: the eligible entries' tokens in the
    #: order read, their party sizes (same order), the seats the batch could hold (NULL:
    #: unlimited), its size in offers (0: no limit) and the party policy.
    eligible = models.JSONField(default=list)
    party_sizes = models.JSONField(default=list)
    seats = models.PositiveIntegerField(null=True, blank=True)
    batch_size = models.PositiveIntegerField(default=0)
    policy = models.CharField(max_length=8, default="strict")
    selected = models.JSONField(default=list)

    class Meta:
        ordering = ["-drawn_at"]
        indexes = [models.Index(fields=["event", "-drawn_at"], name="waitlist_draw_event")]

    def __str__(self) -> str:
        return f"draw {self.batch_id} for {self.event_id}"


class WaitlistQueueSample(models.Model):
    """The queue's length at one moment (a join, a leave, a pass): the stats' time series.

    A plain model (no UUID key, no timestamps of its own): it is written on hot paths and
    only ever read in time order per event.
    """

    id = models.BigAutoField(primary_key=True)
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="waitlist_samples", db_index=False
    )
    at = models.DateTimeField()
    length = models.PositiveIntegerField()

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["event", "at"], name="waitlist_sample_event_at")]

    def __str__(self) -> str:
        return f"{self.length} queued for {self.event_id} at {self.at}"
