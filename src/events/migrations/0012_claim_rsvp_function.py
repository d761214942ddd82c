"""`encore_claim_rsvp`: the hot claim (a new RSVP YES) as one statement (ADR 0022).

PostgreSQL only: SQLite keeps the Python path (`event_manager.manager._write_rsvp`).
The text it installed is frozen beside it (`sql/0012_claim_rsvp.sql`, `_claim_function`).
"""

from django.db import migrations

from events.migrations._claim_function import install


class Migration(migrations.Migration):
    dependencies = [("events", "0011_waitlist_second_round")]

    operations = [install("0012_claim_rsvp.sql", previous=None)]
