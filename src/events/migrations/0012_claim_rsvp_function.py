"""`encore_claim_rsvp`: the hot claim (a new RSVP YES) as one statement (ADR 0022).

PostgreSQL only: SQLite keeps the Python path (`event_manager.manager._write_rsvp`).
The function's text is `events/sql/claim_rsvp.sql`, read at migration time, so the
migration and the code that calls the function describe the same version.
"""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).resolve().parent.parent / "sql" / "claim_rsvp.sql"
DROP = (
    "DROP FUNCTION IF EXISTS encore_claim_rsvp(uuid, uuid, uuid, integer, timestamptz);"
    " DROP FUNCTION IF EXISTS encore_capacity_limit(integer, integer);"
)


def create_function(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL.read_text())


def drop_function(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("events", "0011_waitlist_second_round")]

    operations = [migrations.RunPython(create_function, drop_function, elidable=False)]
