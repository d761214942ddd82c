"""`encore_claim_rsvp` keeps one generic plan per statement and session (ADR 0028).

PL/pgSQL plans each statement of a function like a prepared statement: by default its
first five executions in a session are planned afresh with the values of that call, and
in a claim race most sessions claim fewer than five times. The function's statements
look rows up by key, where the generic plan is the custom one, so the function now
carries `SET plan_cache_mode = force_generic_plan` (frozen in `sql/0016_claim_rsvp.sql`).
PostgreSQL only.
"""

from django.db import migrations

from events.migrations._claim_function import install


class Migration(migrations.Migration):
    dependencies = [("events", "0015_payments")]

    operations = [install("0016_claim_rsvp.sql", previous="0014_claim_rsvp.sql")]
