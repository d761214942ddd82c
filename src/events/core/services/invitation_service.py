"""Invitations: admitting a user to a private event, optionally past its capacity.

Creating is idempotent on (event, user): inviting someone again returns their
invitation, with `overrides_max_attendees` set to what the organiser sent this time.
An invitation changes who may register, never who already did, so neither write takes
the Event lock; the capacity override is honoured by the locked check at registration.
"""

import logging

from django.db import transaction

from accounts.models import User
from common.errors import Conflict
from events.core.services.unique_insert import insert_or_conflict
from events.models import Event, Invitation

logger = logging.getLogger("encore.events")


def create_invitation(
    event: Event, user: User, *, overrides_max_attendees: bool = False
) -> Invitation:
    """Invite `user` (again): one row per (event, user), the override flag as sent."""
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update(of=("self",))
            .filter(event=event, user=user)
            .first()
        )
        if invitation is None:
            invitation = Invitation(
                event=event, user=user, overrides_max_attendees=overrides_max_attendees
            )
            invitation.full_clean()
            insert_or_conflict(
                invitation, Conflict("The user was just invited.", code="invitation_exists")
            )
            logger.info(
                "invitation created",
                extra={"event_id": str(event.pk), "user_id": str(user.pk)},
            )
        elif invitation.overrides_max_attendees != overrides_max_attendees:
            invitation.overrides_max_attendees = overrides_max_attendees
            invitation.save(update_fields=["overrides_max_attendees", "updated_at"])
    return invitation


def delete_invitation(invitation: Invitation) -> None:
    """Withdraw an invitation; registrations made with it stay (staff remove those)."""
    invitation_id, event_id = invitation.pk, invitation.event_id
    invitation.delete()
    logger.info(
        "invitation deleted",
        extra={"event_id": str(event_id), "invitation_id": str(invitation_id)},
    )
