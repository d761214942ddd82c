"""The lottery's public record: one `WaitlistDraw` as queue members and organisers read it.

Tickets appear as 16 hex digits (`format(token, "016x")`), the form my-status shows a
member their own in, so a member finds themselves in a draw without learning who the
others are. The fields besides docs/spec/api.md's six are what `replay_draw` needs as well.
"""

import uuid
from datetime import datetime
from typing import Literal

from ninja import Field, Schema


class WaitlistDrawSchema(Schema):
    batch_id: uuid.UUID
    drawn_at: datetime
    seed: str = Field(description="64 hex digits: 32 random bytes drawn for this batch.")
    algorithm: str = Field(
        description="The published function that maps (seed, eligible) to selected: "
        "`encore-ring-v1` (ADR 0018)."
    )
    eligible: list[str] = Field(
        description="Tickets of the entries the draw read, in ring order from the seed's "
        "start point (never-rotated members first): the arc it read, not the whole queue."
    )
    selected: list[str] = Field(description="Tickets of the entries offered a seat, in order.")
    party_sizes: list[int] = Field(description="Seats each eligible entry queued for, same order.")
    seats: int | None = Field(description="Seats the batch could hold (null: no limit).")
    batch_size: int = Field(description="Most offers the batch could make (0: no limit).")
    policy: Literal["strict", "fill"] = Field(description="The organiser's party policy.")
    tier_id: uuid.UUID | None = Field(
        description="The tier whose queue was drawn; null: the event."
    )
