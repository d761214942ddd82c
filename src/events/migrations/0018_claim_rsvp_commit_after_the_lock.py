"""`encore_claim_rsvp`: a win's commit releases the lock before its flush (ADR 0029).

The function now sets `synchronous_commit` off for its own transaction when it wins; the
caller flushes with a synchronous commit of its own before it answers
(`events.service.claim_function.DURABLE`). `CREATE OR REPLACE` applies it; the result
type is unchanged. PostgreSQL only.
"""

from django.db import migrations

from events.migrations._claim_function import replace_function


class Migration(migrations.Migration):
    dependencies = [("events", "0017_claim_rsvp_one_write_statement")]

    operations = [
        migrations.RunPython(replace_function, migrations.RunPython.noop, elidable=False)
    ]
