"""`manage.py replay_waitlist_draw <batch_id>`: recompute a recorded lottery draw and compare.

Anyone can redo a draw from its published record (GET /events/{id}/waitlist/draws/
{batch_id}) with `replay_draw`; this command does the same from the database, for an
organiser or an operator answering "was this fair?". It prints one line per selected
ticket and whether the recomputation matches; exit status 1 when it does not (or the
record cannot be replayed), so a script or a test can rely on it.
"""

from typing import Any
from uuid import UUID

from django.core.management.base import BaseCommand, CommandError, CommandParser

from events.models import WaitlistDraw
from events.waitlist.services.lottery import ALGORITHM, DrawMismatch, replay_draw


class Command(BaseCommand):
    help = "Recompute a recorded lottery draw from its seed and say whether it matches."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("batch_id", help="the lottery batch's id (WaitlistDraw.batch_id)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            batch_id = UUID(options["batch_id"])
        except ValueError as error:
            raise CommandError(f"not a batch id: {options['batch_id']!r}") from error
        draw = WaitlistDraw.objects.filter(batch_id=batch_id).first()
        if draw is None:
            raise CommandError(f"no lottery draw with batch id {batch_id}")
        if draw.algorithm != ALGORITHM:
            raise CommandError(f"unknown algorithm {draw.algorithm!r} (this build: {ALGORITHM})")
        self.stdout.write(
            f"draw {draw.batch_id} of event {draw.event_id} at {draw.drawn_at.isoformat()}: "
            f"seed {draw.seed}, {len(draw.eligible)} eligible, seats {draw.seats}, "
            f"batch size {draw.batch_size}, policy {draw.policy}"
        )
        try:
            again = replay_draw(
                draw.seed, draw.eligible, draw.party_sizes, draw.seats, draw.batch_size, draw.policy
            )
        except DrawMismatch as error:
            raise CommandError(f"cannot replay: {error}") from error
        for position, token in enumerate(again, start=1):
            recorded = "recorded" if token in draw.selected else "NOT recorded"
            self.stdout.write(f"{position:>4}  {token}  {recorded}")
        if again != list(draw.selected):
            missing = [token for token in draw.selected if token not in again]
            raise CommandError(
                f"MISMATCH: the replay selects {len(again)} tickets, the record "
                f"{len(draw.selected)} (in another order or others: {missing or 'same set'})"
            )
        self.stdout.write(self.style.SUCCESS(f"match: {len(again)} selected"))
