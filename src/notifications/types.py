"""What each notification type needs: required context keys, urgency, templates.

The receiver refuses a context that misses a required key, so every template can rely on
its keys being present. Templates live under
`notifications/templates/notifications/{email,in_app,telegram}/<template_name>.*`.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from notifications.models import NotificationType

# Every notification about one event carries these (routing, grouping, a human start time).
EVENT_KEYS = frozenset(
    {"event_id", "event_name", "event_url", "event_start_formatted", "organization_name"}
)

# docs/spec/seed-tables.md, "Notification context of WAITLIST_SPOT_AVAILABLE".
WAITLIST_OFFER_KEYS = EVENT_KEYS | {
    "event_start",
    "organization_id",
    "offer_id",
    "expires_at",
    "expires_at_formatted",
    "time_remaining_formatted",
    "is_cutoff_batch",
}

# docs/spec/seed-tables.md, "Digest for drafts".
SERIES_DIGEST_KEYS = frozenset(
    {
        "series_id",
        "series_name",
        "series_url",
        "organization_id",
        "organization_name",
        "events_count",
        "occurrences",
    }
)
OCCURRENCE_KEYS = frozenset({"event_id", "name", "start", "start_formatted", "event_url"})


@dataclass(frozen=True)
class NotificationSpec:
    """One notification type.

    `time_critical`: delivered at once on every channel the user's preferences allow,
    never held back by batching, digests or quiet hours (docs/spec/domain.md: a waitlist offer
    expires, so a delayed offer is a lost seat). Nothing batches today; any future
    batching must leave these types alone.
    `item_keys`: for list-valued keys, the keys each item must carry.
    """

    notification_type: NotificationType
    required_keys: frozenset[str]
    time_critical: bool = False
    item_keys: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @property
    def template_name(self) -> str:
        return str(self.notification_type.value)

    def missing_keys(self, context: Mapping[str, Any]) -> list[str]:
        """Required keys absent from `context` (list items as `key[index].item_key`)."""
        missing = sorted(self.required_keys - context.keys())
        for key, wanted in self.item_keys.items():
            items = context.get(key)
            if not isinstance(items, list):
                if key not in missing:
                    missing.append(f"{key} (a list)")
                continue
            for index, item in enumerate(items):
                present = item.keys() if isinstance(item, Mapping) else set()
                missing.extend(f"{key}[{index}].{name}" for name in sorted(wanted - present))
        return missing


_SPECS = [
    NotificationSpec(
        NotificationType.WAITLIST_SPOT_AVAILABLE, WAITLIST_OFFER_KEYS, time_critical=True
    ),
    # Your hold lapsed; you are back in the queue.
    NotificationSpec(NotificationType.WAITLIST_OFFER_EXPIRED, EVENT_KEYS | {"offer_id"}),
    # An organiser took the held seat back; you stay queued but are skipped until they act.
    NotificationSpec(NotificationType.WAITLIST_OFFER_REVOKED, EVENT_KEYS | {"offer_id"}),
    NotificationSpec(
        NotificationType.SERIES_EVENTS_GENERATED,
        SERIES_DIGEST_KEYS,
        item_keys={"occurrences": OCCURRENCE_KEYS},
    ),
    NotificationSpec(NotificationType.EVENT_OPEN, EVENT_KEYS),
    # `changed_fields`: a list drawn from "start", "end", "venue".
    NotificationSpec(NotificationType.EVENT_UPDATED, EVENT_KEYS | {"changed_fields"}),
    NotificationSpec(NotificationType.EVENT_CANCELLED, EVENT_KEYS),
    NotificationSpec(NotificationType.TICKET_CREATED, EVENT_KEYS | {"ticket_id", "tier_name"}),
    NotificationSpec(NotificationType.TICKET_CANCELLED, EVENT_KEYS | {"ticket_id", "tier_name"}),
    # `status`: the RSVP answer, "yes" | "no" | "maybe".
    NotificationSpec(NotificationType.RSVP_CONFIRMATION, EVENT_KEYS | {"status"}),
]

NOTIFICATION_SPECS: dict[str, NotificationSpec] = {
    spec.notification_type.value: spec for spec in _SPECS
}


def get_spec(notification_type: str) -> NotificationSpec:
    """The spec of a type; an unknown type is a programming error (ValueError)."""
    try:
        return NOTIFICATION_SPECS[str(notification_type)]
    except KeyError:
        raise ValueError(f"unknown notification type {notification_type!r}") from None
