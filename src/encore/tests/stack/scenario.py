"""Build the stack test's data in the stack's database; print ids and JWTs as JSON.

Run by the test in a subprocess with the stack's own environment (`python -m
encore.tests.stack.scenario`, from src/), after `migrate`: the rows are committed in the
private PostgreSQL the servers use, and the tokens are signed with the stack's key.
Test data only, built like the other tests build theirs (factories, bulk rows with
counters kept true); the behaviour under test is then driven over HTTP.

- `race`: an RSVP event whose waitlist cutoff has passed, `RACE_SEATS` seats left, and
  `RACERS` queued members who each hold a cutoff offer (first come, first served).
- `rotation`: an active waitlist (batch size 1) on a full event; each attendee who says
  "no" frees a seat that the next member's offer must take.
- `broker`: a full event with a queue (open mode), for the broker outage.
- `stranded`: a full event of one seat with a queue: the seat is freed while the offer
  e-mail's worker is paused, so its task is in Redis when Redis restarts empty.
- `confirm`: an event with free seats; some say "yes" while the bulk worker is paused
  (their confirmations' tasks are in Redis when it restarts empty), some while Redis
  is down (their tasks are kept in the outbox).
- `resets`: accounts whose password-reset mail is asked for (bulk work on a hung SMTP
  server; a reset asked for while the broker is down must still go out).
"""

import json
import os
import uuid
from datetime import timedelta
from typing import Any

import django

RACERS = 100
RACE_SEATS = 10
RACE_ATTENDEES = 10
ROTATIONS = 10  # docs/spec/quality.md f1: median and max over 10 rotations
RESETS = 12
LOST_CONFIRMATIONS = 3
OUTAGE_CONFIRMATIONS = 2


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "encore.settings")
    django.setup()
    print(json.dumps(build()))


def build() -> dict[str, Any]:
    from django.db import transaction
    from django.utils import timezone

    from events.models import Event

    from .scenario_rows import offers, queue, seat, token, users

    tag = uuid.uuid4().hex[:6]
    now = timezone.now()
    with transaction.atomic():
        race = _event(
            tag, "race", RACE_ATTENDEES + RACE_SEATS, waitlist_cutoff_date=now - timedelta(hours=1)
        )
        seat(race, users(RACE_ATTENDEES, f"{tag}-race-seated"))
        racers = users(RACERS, f"{tag}-racer")
        queue(race, racers)
        offers(race, racers, race.start, cutoff=True)

        rotation = _event(tag, "rotation", ROTATIONS, waitlist_batch_size=1)
        leavers = users(ROTATIONS, f"{tag}-rotation-seated")
        seat(rotation, leavers)
        rotation_queue = users(ROTATIONS + 2, f"{tag}-rotation-queued")
        queue(rotation, rotation_queue)

        broker = _event(tag, "broker", 2)  # open mode: one pass offers every free seat
        broker_seated = users(2, f"{tag}-broker-seated")
        seat(broker, broker_seated)
        broker_queue = users(3, f"{tag}-broker-queued")
        queue(broker, broker_queue)

        stranded = _event(tag, "stranded", 1)
        stranded_seated = users(1, f"{tag}-stranded-seated")
        seat(stranded, stranded_seated)
        stranded_queue = users(2, f"{tag}-stranded-queued")
        queue(stranded, stranded_queue)

        confirm = _event(tag, "confirm", LOST_CONFIRMATIONS + OUTAGE_CONFIRMATIONS)
        lost = users(LOST_CONFIRMATIONS, f"{tag}-confirm-lost")
        outage = users(OUTAGE_CONFIRMATIONS, f"{tag}-confirm-outage")

        resets = users(RESETS, f"{tag}-reset", password="stack-test-password")
    assert Event.objects.filter(slug__startswith=f"stack-{tag}-").count() == 5
    return {
        "race": {"event": str(race.pk), "seats": RACE_SEATS, "tokens": [token(u) for u in racers]},
        "rotation": {
            "event": str(rotation.pk),
            "leavers": [token(u) for u in leavers],
            "leaver_emails": [u.email for u in leavers],
            "queue": [str(u.pk) for u in rotation_queue],
            "queue_emails": [u.email for u in rotation_queue],
        },
        "broker": {
            "event": str(broker.pk),
            "leavers": [token(u) for u in broker_seated],
            "leaver_emails": [u.email for u in broker_seated],
            "queue": [str(u.pk) for u in broker_queue],
            "queue_emails": [u.email for u in broker_queue],
        },
        "stranded": {
            "event": str(stranded.pk),
            "leaver": token(stranded_seated[0]),
            "offered": stranded_queue[0].email,
        },
        "confirm": {
            "event": str(confirm.pk),
            "lost": [token(u) for u in lost],
            "lost_emails": [u.email for u in lost],
            "outage": [token(u) for u in outage],
            "outage_emails": [u.email for u in outage],
        },
        "resets": [u.email for u in resets],
        "member": token(broker_queue[-1]),
    }


def _event(tag: str, name: str, capacity: int, **fields: Any) -> Any:
    """An open RSVP event in a week, its active waitlist open (2-hour window)."""
    from events.core.tests.factories import make_event, make_org

    from .scenario_rows import users

    [owner] = users(1, f"{tag}-{name}-owner")
    organization = make_org(owner=owner, name=f"Stack {tag} {name}", slug=f"stack-{tag}-{name}")
    fields.setdefault("waitlist_batch_size", 0)
    return make_event(
        organization,
        name=f"Stack {name} {tag}",
        slug=f"stack-{tag}-{name}",
        max_attendees=capacity,
        waitlist_open=True,
        waitlist_time_window=timedelta(hours=2),
        **fields,
    )


if __name__ == "__main__":
    main()
