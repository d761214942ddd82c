"""Installing the claim function's frozen SQL (the migrations 0012-0022 that carry one).

Each migration that installs `encore_claim_rsvp` carries the text it installed, frozen in
`migrations/sql/<its number>_claim_rsvp.sql`: replaying the migrations installs what each
one installed, whatever `events/core/sql/claim_rsvp.sql` says today. A change to the function
is a new migration with a new frozen copy; the newest copy is the file's text
(`events/core/tests/test_claim_function_sql.py` fails otherwise, and compares it with the
function in the database).

The leading underscore keeps Django's migration loader from taking this for a migration.
PostgreSQL only: SQLite has no functions and keeps the Python path.
"""

from pathlib import Path

from django.db import migrations

FROZEN = Path(__file__).resolve().parent / "sql"
DROP = (
    "DROP FUNCTION IF EXISTS encore_claim_rsvp(uuid, uuid, uuid, integer, timestamptz);"
    " DROP FUNCTION IF EXISTS encore_capacity_limit(integer, integer);"
)


def _run(name):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(DROP)
            if name is not None:
                schema_editor.execute((FROZEN / name).read_text())

    return run


def install(name, previous):
    """Drop the function and create it from the frozen `name`; reversed, from `previous`
    (None: the migration that first created it, reversed, leaves none)."""
    return migrations.RunPython(_run(name), _run(previous), elidable=False)
