"""Who is who to an organisation, as filters on `User` rows: for notification audiences.

Each function returns a condition on the outer `User` (`OuterRef("pk")`), so an audience
is one query whatever its size, combined with `|`, `&` and `~` by its caller
(`event_notifications` for `event_open`, `series_notifications` for the digest).
"""

import uuid

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.db.models.functions import Lower

from events.core.selectors.access import LIVE_MEMBER_STATUSES
from events.models import (
    Blacklist,
    Event,
    EventRSVP,
    EventSeriesFollow,
    Organization,
    OrganizationFollow,
    OrganizationMember,
    OrganizationStaff,
    Ticket,
)


def live_members(organization: Organization) -> Q:
    """Active and paused members (a paused membership still hears of events)."""
    return Q(
        Exists(
            OrganizationMember.objects.filter(
                organization=organization, user=OuterRef("pk"), status__in=LIVE_MEMBER_STATUSES
            )
        )
    )


def owner_and_staff(organization: Organization) -> Q:
    return Q(pk=organization.owner_id) | Q(
        Exists(OrganizationStaff.objects.filter(organization=organization, user=OuterRef("pk")))
    )


def holding_tickets(event: Event) -> Q:
    """People holding a ticket of `event` that is not cancelled."""
    return Q(
        Exists(
            Ticket.objects.filter(event=event, user=OuterRef("pk")).exclude(
                status=Ticket.Status.CANCELLED
            )
        )
    )


def going(event: Event) -> Q:
    """People who answered yes to `event`."""
    return Q(
        Exists(
            EventRSVP.objects.filter(event=event, user=OuterRef("pk"), status=EventRSVP.Status.YES)
        )
    )


def new_event_followers(organization_id: uuid.UUID, series_id: uuid.UUID | None) -> Q:
    """Followers of the organisation, or of the series, who want new events (not archived)."""
    follows = _wanting_new_events(
        OrganizationFollow.objects.filter(organization_id=organization_id)
    )
    if series_id is not None:
        follows |= _wanting_new_events(EventSeriesFollow.objects.filter(event_series_id=series_id))
    return follows


def _wanting_new_events(follows: QuerySet[OrganizationFollow] | QuerySet[EventSeriesFollow]) -> Q:
    return Q(Exists(follows.filter(user=OuterRef("pk"), is_archived=False, notify_new_events=True)))


def blacklist_entries(organization: Organization) -> QuerySet[Blacklist]:
    """The organisation's entries matching the outer user by account or e-mail (any case)."""
    return (
        Blacklist.objects.filter(organization=organization)
        .alias(email_ci=Lower("email"))
        .filter(Q(user=OuterRef("pk")) | Q(email_ci=Lower(OuterRef("email"))))
    )
