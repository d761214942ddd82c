"""`encore_claim_rsvp`: a winning claim's four writes are one statement (ADR 0022).

The RSVP, the attendee count, the caller's live offer CLAIMED and the queue entry gone
now run as one data-modifying `WITH` instead of four PL/pgSQL statements, so the lock
holder starts and ends one executor run instead of four (frozen in
`sql/0017_claim_rsvp.sql`). PostgreSQL only.
"""

from django.db import migrations

from events.migrations._claim_function import install


class Migration(migrations.Migration):
    dependencies = [("events", "0016_claim_rsvp_generic_plans")]

    operations = [install("0017_claim_rsvp.sql", previous="0016_claim_rsvp.sql")]
