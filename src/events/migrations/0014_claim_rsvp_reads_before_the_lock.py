"""`encore_claim_rsvp`, second version: a refusal is decided on a snapshot before the lock
when it can be, one decided under the lock rolls back instead of committing, the caller's
own rows are read before the lock, and the result gains `arrived_at` (ADR 0022,
`events/sql/claim_rsvp.sql`).

The result type changed, so the function is dropped and created again (PostgreSQL only).
0012 reads the same file, so a fresh database gets this version there already; running it
again here is harmless.
"""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).resolve().parent.parent / "sql" / "claim_rsvp.sql"
DROP = (
    "DROP FUNCTION IF EXISTS encore_claim_rsvp(uuid, uuid, uuid, integer, timestamptz);"
    " DROP FUNCTION IF EXISTS encore_capacity_limit(integer, integer);"
)


def recreate_function(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)
        schema_editor.execute(SQL.read_text())


class Migration(migrations.Migration):
    dependencies = [("events", "0013_series_second_round")]

    operations = [
        migrations.RunPython(recreate_function, migrations.RunPython.noop, elidable=False)
    ]
