"""`encore_claim_rsvp`, second version: a refusal is decided on a snapshot before the lock
when it can be, one decided under the lock rolls back instead of committing, the caller's
own rows are read before the lock, and the result gains `arrived_at` (ADR 0022).

The result type changed, so the function is dropped and created again from the frozen
`sql/0014_claim_rsvp.sql` (PostgreSQL only).
"""

from django.db import migrations

from events.migrations._claim_function import install


class Migration(migrations.Migration):
    dependencies = [("events", "0013_series_second_round")]

    operations = [install("0014_claim_rsvp.sql", previous="0012_claim_rsvp.sql")]
