"""The error a refusal of the eligibility pipeline (or of a locked re-check) raises.

It carries the pipeline's whole answer (`EventUserEligibility`), so it lives in the
eligibility package, beside the answer it wraps; `common.api` maps it to HTTP.
"""

from typing import Any

from common.errors import EncoreError
from events.core.eligibility.enums import CAPACITY_REASON_CODES
from events.core.eligibility.types import EventUserEligibility


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
