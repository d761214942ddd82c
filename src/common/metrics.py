"""Domain counters for Prometheus (`/metrics`), beside django-prometheus' HTTP metrics.

They count what the waitlist and the notifications did, so an operator sees whether
offers go out, get claimed or lapse, and whether mail gets through, without reading the
database. `common` is the bottom layer, so every app increments them at the place the
thing happens, with one line: `count(OFFERS_CREATED, n, kind="batch")`. `count` waits
for the surrounding transaction to commit, so rolled-back work is never counted.

Several processes (gunicorn and Celery workers) each keep their own values; with
`PROMETHEUS_MULTIPROC_DIR` set (encore/gunicorn.py, scripts/run.sh) they write them to
files there and `/metrics` adds them up (docs/architecture/deployment.md).
"""

from prometheus_client import Counter

from common import dispatch

OFFERS_CREATED = Counter(
    "encore_waitlist_offers_created",
    "Waitlist offers made, by kind: batch (a processing pass), cutoff, admin.",
    ["kind"],
)
OFFERS_CLAIMED = Counter(
    "encore_waitlist_offers_claimed", "Waitlist offers claimed by a registration."
)
OFFERS_EXPIRED = Counter(
    "encore_waitlist_offers_expired", "Waitlist offers that lapsed unclaimed (the expiry sweep)."
)
CLAIMS_REFUSED = Counter(
    "encore_claims_refused",
    "Registrations (RSVP yes, ticket purchase) refused, by the docs/spec/api.md reason code.",
    ["reason"],
)
SERIES_GENERATION_PASSES = Counter(
    "encore_series_generation_passes",
    "Series generation passes that ran, by whether they created events.",
    ["created"],
)
NOTIFICATION_DELIVERIES = Counter(
    "encore_notification_deliveries",
    "Notification delivery attempts, by channel and outcome (sent, failed, skipped).",
    ["channel", "outcome"],
)


def refused(reason: str | None) -> None:
    """A registration was refused: counted at once, since the refusal is the outcome
    even when the transaction that found it rolls back."""
    CLAIMS_REFUSED.labels(reason=reason or "not_allowed").inc()


def count(counter: Counter, amount: float = 1, **labels: str) -> None:
    """Add `amount` once the current transaction commits (at once outside one)."""
    if amount <= 0:
        return
    target = counter.labels(**labels) if labels else counter
    dispatch.call_after_commit("metric count", lambda: target.inc(amount))
