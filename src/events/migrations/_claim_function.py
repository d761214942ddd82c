"""What the migrations that re-apply `events/sql/claim_rsvp.sql` share (0016-0018, 0020).

The leading underscore keeps Django's migration loader from taking this for a migration.
The file is read at migration time, so every one of them applies the current text:
harmless: the file drops the function and creates it again, the same for all of them.
"""

from pathlib import Path

SQL = Path(__file__).resolve().parent.parent / "sql" / "claim_rsvp.sql"


def replace_function(apps, schema_editor):
    """Drop and create the claim function from the file (PostgreSQL only; SQLite has none)."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(SQL.read_text())
