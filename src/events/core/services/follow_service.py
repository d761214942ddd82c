"""Following organisations and event series (docs/spec/domain.md: unfollowing archives).

A follow row is never deleted: unfollowing sets `is_archived`, following again clears
it, so the row keeps its history and its `notify_new_events` choice. Both calls are
idempotent. Unfollowing works even after the organisation became invisible to the
user (for example after a blacklisting), so nobody is stuck following; without a
follow row, an invisible organisation or series answers 404 like everywhere else.
"""

import uuid
from typing import Any, TypeVar

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from events.core.selectors.organization import get_visible_organization, get_visible_series
from events.models import EventSeries, EventSeriesFollow, Organization, OrganizationFollow

FollowT = TypeVar("FollowT", OrganizationFollow, EventSeriesFollow)


def follow_organization(
    user: User, organization: Organization, *, notify_new_events: bool | None = None
) -> OrganizationFollow:
    return _follow(
        OrganizationFollow, {"user": user, "organization": organization}, notify_new_events
    )


def unfollow_organization(user: User, *, slug: str) -> None:
    follows = OrganizationFollow.objects.filter(user=user, organization__slug=slug)
    if not _archive(follows):
        get_visible_organization(user, slug)


def follow_series(
    user: User, series: EventSeries, *, notify_new_events: bool | None = None
) -> EventSeriesFollow:
    return _follow(EventSeriesFollow, {"user": user, "event_series": series}, notify_new_events)


def unfollow_series(user: User, *, series_id: uuid.UUID) -> None:
    follows = EventSeriesFollow.objects.filter(user=user, event_series_id=series_id)
    if not _archive(follows):
        get_visible_series(user, series_id)


def _follow(model: type[FollowT], lookup: dict[str, Any], notify: bool | None) -> FollowT:
    """Create the row, or revive an archived one; `notify=None` keeps the stored choice."""
    with transaction.atomic():
        follow, created = model.objects.select_for_update().get_or_create(
            **lookup, defaults={"notify_new_events": True if notify is None else notify}
        )
        if created:
            return follow
        changed: list[str] = []
        if follow.is_archived:
            follow.is_archived = False
            changed.append("is_archived")
        if notify is not None and follow.notify_new_events != notify:
            follow.notify_new_events = notify
            changed.append("notify_new_events")
        if changed:
            follow.save(update_fields=[*changed, "updated_at"])
    return follow


def _archive(follows: QuerySet[Any]) -> int:
    """Archive the matching rows; the count says whether any existed."""
    return follows.update(is_archived=True, updated_at=timezone.now())
