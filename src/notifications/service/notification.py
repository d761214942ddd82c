"""Store a requested notification and hand it to delivery once the transaction commits.

Called by the `notification_requested` receiver. The context is validated against the
type's required keys (a missing key is the sender's bug: ValueError), normalised to plain
JSON, rendered into the in-app title and body in the user's language, and stored. Delivery
is registered with `common.dispatch.call_after_commit`: a rolled-back transaction sends nothing, and
no e-mail or Telegram call ever runs while the sender still holds its row locks.
"""

import json
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

from accounts.models import User
from common.dispatch import call_after_commit
from notifications import rendering
from notifications.models import Notification
from notifications.service import dispatch
from notifications.types import get_spec

logger = logging.getLogger(__name__)


def create_notification(
    *,
    user: User,
    notification_type: str,
    context: Mapping[str, Any],
    expires_at: datetime | None = None,
) -> Notification:
    """Validate, render and store; dispatch to the channels after commit.

    `expires_at`: past it the notification is no use (an offer lapsed) and no channel sends
    it; until then a failed delivery of it is revived (`dispatch.redispatch_...`)."""
    spec = get_spec(notification_type)
    plain = normalise_context(context)
    missing = spec.missing_keys(plain)
    if missing:
        raise ValueError(
            f"{spec.notification_type.value} notification is missing context keys: "
            + ", ".join(missing)
        )
    content = rendering.render_in_app(spec.notification_type, plain, user)
    notification = Notification.objects.create(
        user=user,
        notification_type=spec.notification_type,
        title=content.title,
        body=content.body,
        context=plain,
        expires_at=expires_at,
    )
    logger.info(
        "notification stored",
        extra={
            "notification_id": str(notification.pk),
            "notification_type": notification.notification_type,
            "user_id": str(user.pk),
        },
    )
    # A dispatch failure after commit (broker down, a bug) is logged, never raised into
    # the request or task whose transaction has already committed.
    notification_id = notification.pk
    call_after_commit(
        "notification dispatch", lambda: dispatch.dispatch_notification(notification_id)
    )
    return notification


def normalise_context(context: Mapping[str, Any]) -> dict[str, Any]:
    """Plain JSON data: UUIDs, datetimes and decimals become strings, as they are stored."""
    if not isinstance(context, Mapping):
        raise TypeError(f"notification context must be a mapping, not {type(context).__name__}")
    normalised: dict[str, Any] = json.loads(json.dumps(dict(context), cls=DjangoJSONEncoder))
    return normalised
