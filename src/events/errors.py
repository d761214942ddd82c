"""Domain errors of the events app, mapped to HTTP by common.api."""

from typing import Any

from common.errors import Conflict, EncoreError
from events.eligibility.enums import CAPACITY_REASON_CODES, NextStep, Reasons
from events.eligibility.types import EventUserEligibility


class EligibilityRefused(EncoreError):
    """The pipeline (or the locked re-check) said no.

    The body carries every `EventUserEligibility` field beside `detail`/`code`; refusals
    about seats are 409 wherever they were found, everything else 400 (docs/spec/api.md).
    """

    def __init__(self, eligibility: EventUserEligibility) -> None:
        self.eligibility = eligibility
        body: dict[str, Any] = eligibility.as_dict()
        code = eligibility.reason_code or "not_allowed"
        status = 409 if code in CAPACITY_REASON_CODES else 400
        super().__init__(eligibility.reason, code=code, extra=_jsonable(body), status_code=status)


def _jsonable(body: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (v.isoformat() if hasattr(v, "isoformat") else str(v) if k == "event_id" else v)
        for k, v in body.items()
    }


def capacity_refusal(
    event_id: Any, reason: Reasons = Reasons.EVENT_IS_FULL, next_step: NextStep | None = None
) -> EligibilityRefused:
    """The refusal the locked capacity checks raise, shaped like the gate's."""
    return EligibilityRefused(EventUserEligibility.refuse(event_id, reason, next_step))


class HasAttendees(Conflict):
    default_code = "has_attendees"
    default_detail = "The event has tickets or RSVPs and cannot be deleted."


class InvalidTransition(Conflict):
    default_code = "invalid_status_transition"
    default_detail = "The event cannot move to that status from its current one."
