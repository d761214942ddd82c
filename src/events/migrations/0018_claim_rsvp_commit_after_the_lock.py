"""`encore_claim_rsvp`: a win's commit releases the lock before its flush (ADR 0029).

The function now sets `synchronous_commit` off for its own transaction when it wins; the
caller flushes with a synchronous commit of its own before it answers
(`events.core.services.claim_function.DURABLE`). Frozen in `sql/0018_claim_rsvp.sql`.
PostgreSQL only.
"""

from django.db import migrations

from events.migrations._claim_function import install


class Migration(migrations.Migration):
    dependencies = [("events", "0017_claim_rsvp_one_write_statement")]

    operations = [install("0018_claim_rsvp.sql", previous="0017_claim_rsvp.sql")]
