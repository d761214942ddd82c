"""Builders for the attendance tests (RSVP, waitlist, eligibility), on top of factories."""

from accounts.models import User
from events.models import Blacklist, Event, EventRSVP, EventWaitList, Invitation, Organization


def blacklist(organization: Organization, *, user: User | None = None, email: str = "") -> None:
    Blacklist.objects.create(organization=organization, user=user, email=email)


def invite(event: Event, user: User, *, overrides_max_attendees: bool = False) -> None:
    Invitation.objects.create(
        event=event, user=user, overrides_max_attendees=overrides_max_attendees
    )


def queue(event: Event, *users: User) -> None:
    """Put users on the event's queue, in the given order."""
    for user in users:
        EventWaitList.objects.create(event=event, user=user)


def yes_count(event: Event) -> int:
    return EventRSVP.objects.filter(event=event, status=EventRSVP.Status.YES).count()


def attendee_count(event: Event) -> int:
    return Event.objects.values_list("attendee_count", flat=True).get(pk=event.pk)
