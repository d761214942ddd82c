"""Reads behind the public event routes: the list, the detail, the participation door.

Every row the schemas serialise comes out of `with_public_fields`, which puts what each
row needs into the page query itself (organisation, venue, "is the caller staff here?",
seats held) and prefetches the tiers of the whole page in one more query, so a page of
100 events costs the same number of queries as a page of one.
"""

import uuid
from datetime import datetime
from typing import cast

from django.contrib.auth.models import AnonymousUser
from django.db.models import (
    BooleanField,
    CharField,
    Exists,
    Expression,
    ExpressionWrapper,
    OuterRef,
    Q,
    QuerySet,
    UUIDField,
    Value,
    prefetch_related_objects,
)
from django.utils import timezone

from common.compiled_query import CompiledInstances, Param
from common.errors import NotFound
from events.core.selectors.access import (
    AnyUser,
    UserRef,
    blacklisted_organizations,
    is_authenticated,
    visible_events,
    visible_events_of,
)
from events.models import Event, OrganizationStaff
from events.waitlist.selectors import queue as waitlist_selectors


def held_seats_expression(now: datetime | None = None) -> Expression:
    """Seats held by live waitlist offers, as an annotation on Event rows.

    Same meaning as `waitlist_selectors.held_offer_count(event_id, None)`: live, non-cutoff offers
    (`waitlist_selectors.held_offers`), so an offer past `expires_at` that the sweeper has
    not reached yet holds nothing. A correlated SUM of their seats inside the page query: no query
    per row.
    """
    held = waitlist_selectors.held_offers(OuterRef("pk"), now or timezone.now())  # type: ignore[arg-type]
    return waitlist_selectors.seat_sum(held)


def seats_held(event: Event) -> int:
    """The one place the schemas read `seats_held` from: the annotation when present."""
    annotated = getattr(event, "seats_held_annotation", None)
    if annotated is not None:
        return int(annotated)
    return waitlist_selectors.held_offer_count(event.pk, None)


def viewer_is_staff_expression(user: AnyUser) -> Expression:
    """True on rows of organisations the caller owns or staffs (they see hidden numbers)."""
    if not is_authenticated(user):
        return Value(False, output_field=BooleanField())
    return _viewer_is_staff(user.pk)


def _viewer_is_staff(user_id: UserRef) -> Expression:
    staff = OrganizationStaff.objects.filter(
        organization=OuterRef("organization_id"), user_id=user_id
    )
    return ExpressionWrapper(
        Q(organization__owner_id=user_id) | Q(Exists(staff)), output_field=BooleanField()
    )


def with_public_fields(events: QuerySet[Event], user: AnyUser) -> QuerySet[Event]:
    """Everything `EventListItem` / `EventDetail` read, without a query per row."""
    return (
        events.select_related("organization", "venue")
        .prefetch_related("ticket_tiers")
        .annotate(
            viewer_is_staff=viewer_is_staff_expression(user),
            seats_held_annotation=held_seats_expression(),
        )
    )


def list_public_events(
    user: AnyUser,
    *,
    organization: str | None = None,
    series: uuid.UUID | None = None,
    start_after: datetime | None = None,
    start_before: datetime | None = None,
    status: str | None = None,
) -> QuerySet[Event]:
    """`GET /events`: visible events without the unlisted ones, soonest first.

    Without `start_after` the list runs "from now on": events that have not ended yet,
    so one in progress is still listed. With it, events starting at or after that
    instant (the bounds form a half-open interval `[start_after, start_before)`).
    Cancelled events stay in the list; their status says so.
    """
    events = visible_events(user).exclude(visibility=Event.Visibility.UNLISTED)
    if organization is not None:
        events = events.filter(organization__slug=organization)
    if series is not None:
        events = events.filter(event_series_id=series)
    if start_after is not None:
        events = events.filter(start__gte=start_after)
    else:
        events = events.filter(end__gte=timezone.now())
    if start_before is not None:
        events = events.filter(start__lt=start_before)
    if status is not None:
        events = events.filter(status=status)
    return with_public_fields(events, user).order_by("start", "pk")


def upcoming_published_events(user: AnyUser) -> QuerySet[Event]:
    """The home page's list: `list_public_events` without drafts, which an organiser sees
    through the API (staff see every status) but which are no one's upcoming events yet.
    Cancelled events stay, marked by their status."""
    return list_public_events(user).exclude(status=Event.Status.DRAFT)


def _public_event_query(*, signed_in: bool) -> QuerySet[Event]:
    """`with_public_fields(visible_events(user), user)` for one event, its values `Param`s;
    the tiers are prefetched after (a compiled statement is one query)."""
    event_id, now = Param("event_id", UUIDField()), waitlist_selectors.now_param()
    if signed_in:
        user_id, email = Param("user_id", UUIDField()), Param("email", CharField())
        events, is_staff = visible_events_of(user_id, email), _viewer_is_staff(user_id)
    else:
        events = visible_events(AnonymousUser())
        is_staff = Value(False, output_field=BooleanField())
    held = waitlist_selectors.held_offers(OuterRef("pk"), now)  # type: ignore[arg-type]
    return (
        events.select_related("organization", "venue")
        .annotate(viewer_is_staff=is_staff, seats_held_annotation=waitlist_selectors.seat_sum(held))
        .filter(pk=event_id)
    )


#: The event page and `GET /events/{id}`, compiled once and prepared on PostgreSQL (ADR
#: 0028): building the visibility rule cost the page more than the database spends
#: answering it (docs/spec/quality.md h1).
_PUBLIC_EVENT = CompiledInstances(
    lambda: _public_event_query(signed_in=True), prepared_as="public_event"
)
_PUBLIC_EVENT_ANONYMOUS = CompiledInstances(
    lambda: _public_event_query(signed_in=False), prepared_as="public_event_anonymous"
)


def get_public_event(user: AnyUser, event_id: uuid.UUID) -> Event:
    """`GET /events/{id}`: a visible event (unlisted ones too), else 404; what
    `with_public_fields` gives a row, its tiers prefetched."""
    now = timezone.now()
    if is_authenticated(user):
        found = _PUBLIC_EVENT.all(user_id=user.pk, email=user.email, event_id=event_id, now=now)
    else:
        found = _PUBLIC_EVENT_ANONYMOUS.all(event_id=event_id, now=now)
    if not found:
        raise NotFound("Event not found.")
    prefetch_related_objects(found, "ticket_tiers")
    return cast(Event, found[0])


def _participation_query() -> QuerySet[Event]:
    user_id, email = Param("user_id", UUIDField()), Param("email", CharField())
    return (
        visible_events_of(user_id, email)
        .select_related("organization", "venue")
        .filter(pk=Param("event_id", UUIDField()))
    )


#: The door every claim, status check and waitlist move of a signed-in user goes
#: through: compiled once and prepared on PostgreSQL (ADR 0028), since rebuilding its
#: visibility rule costs Django more than the database spends answering it.
_PARTICIPATION = CompiledInstances(_participation_query, prepared_as="participation_event")


def get_participation_event(user: AnyUser, event_id: uuid.UUID) -> Event:
    """The event an RSVP, a status check or a waitlist join acts on; 404 when invisible.

    One exception, so the pipeline can say why: a blacklisted user asking about an event
    that anyone, even an anonymous visitor, may see gets the event, and the Blacklist gate
    answers `blacklisted`. A bare 404 would reveal nothing the public page does not, but
    leave the person guessing. Everything else of that organisation stays a 404.
    """
    if is_authenticated(user):
        found = _PARTICIPATION.all(user_id=user.pk, email=user.email, event_id=event_id)
        event = found[0] if found else None
    else:
        event = (
            visible_events(user).select_related("organization", "venue").filter(pk=event_id).first()
        )
    if event is None and is_authenticated(user):
        event = (
            visible_events(AnonymousUser())
            .select_related("organization", "venue")
            .filter(pk=event_id, organization__in=blacklisted_organizations(user))
            .first()
        )
    if event is None:
        raise NotFound("Event not found.")
    return event
