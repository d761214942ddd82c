"""An entry of the admin queue list (`GET /event-admin/{event_id}/waitlist`).

Apart from `schema.event_admin` because `current_offer` is the offers routes' own
`OfferSchema` (one shape for an offer wherever organisers see it), and `schema.waitlist`
already builds on `schema.event_admin`.
"""

import uuid
from datetime import datetime

from ninja import Schema

from events.core.schemas.event_admin import UserRefSchema
from events.core.selectors.event_admin import current_offer
from events.models import EventWaitList, WaitlistOffer
from events.waitlist.schemas.settings_and_offers import OfferSchema


class WaitlistQueueEntrySchema(Schema):
    """`position` is null while the member holds a live offer; `current_offer` is their
    PENDING offer, else the one that changed last, whatever its status, else null."""

    id: uuid.UUID
    user: UserRefSchema
    created_at: datetime
    position: int | None
    current_offer: OfferSchema | None

    @staticmethod
    def resolve_current_offer(obj: EventWaitList) -> WaitlistOffer | None:
        return current_offer(obj)  # prefetched for the whole page
