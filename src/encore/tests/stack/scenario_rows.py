"""Row builders for `scenario` (imported after `django.setup()`)."""

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth.hashers import make_password
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from accounts.service.tokens import issue_token_pair
from events.models import Event, EventRSVP, EventWaitList, WaitlistOffer


def users(n: int, tag: str, *, password: str | None = None) -> list[User]:
    """`n` accounts; without `password` they have none usable (they use JWTs), with it
    they share one hash (hashed once: the production hasher is slow by design)."""
    hashed = make_password(password)
    return User.objects.bulk_create(
        [User(email=f"stack-{tag}-{i}@example.com", password=hashed) for i in range(n)]
    )


def seat(event: Event, people: Sequence[User]) -> None:
    """YES RSVPs, `attendee_count` kept true. Given a day ago, as production would have
    them: answered and confirmed long before, so the recovery after a broker loss (which
    confirms recent answers with no confirmation stored) rightly leaves them alone."""
    EventRSVP.objects.bulk_create(
        [EventRSVP(event=event, user=u, status=EventRSVP.Status.YES) for u in people]
    )
    a_day_ago = timezone.now() - timedelta(days=1)
    EventRSVP.objects.filter(event=event, user__in=people).update(
        created_at=a_day_ago, updated_at=a_day_ago
    )
    Event.objects.filter(pk=event.pk).update(attendee_count=F("attendee_count") + len(people))


def queue(event: Event, members: Sequence[User]) -> None:
    """Queue members in the given order."""
    for member in members:  # one row each: each gets its own created_at, so FIFO is this order
        EventWaitList.objects.create(event=event, user=member)


def offers(event: Event, holders: Sequence[User], expires_at: datetime, *, cutoff: bool) -> None:
    batch_id = uuid.uuid4()
    WaitlistOffer.objects.bulk_create(
        [
            WaitlistOffer(
                event=event,
                user=u,
                expires_at=expires_at,
                batch_id=batch_id,
                is_cutoff_batch=cutoff,
            )
            for u in holders
        ]
    )


def token(user: User) -> str:
    return issue_token_pair(user).access
