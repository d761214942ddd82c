"""The claim function cannot drift from its SQL file (docs/spec/quality.md "Reliability").

`events/core/sql/claim_rsvp.sql` is the text the code is written against; each migration that
installs the function carries a frozen copy of what it installed
(`events/migrations/sql/`). A change to the file without a migration that installs it,
or a database whose function is not the file's, fails here.
"""

import re
from pathlib import Path

import pytest
from django.db import connection

EVENTS = Path(__file__).resolve().parents[2]
CURRENT = EVENTS / "core" / "sql" / "claim_rsvp.sql"
FROZEN = EVENTS / "migrations" / "sql"
MIGRATIONS = EVENTS / "migrations"
DEFINITION = re.compile(
    r"CREATE (?:OR REPLACE )?FUNCTION (?P<name>\w+)\((?P<args>.*?)\)\s*RETURNS (?P<returns>.*?)"
    r"\bAS \$fn\$(?P<body>.*?)\$fn\$",
    re.S,
)


def functions(sql: str) -> dict[str, tuple[list[str], str]]:
    """Each function the text creates: its argument and result column names, its body."""
    found = {}
    for match in DEFINITION.finditer(sql):
        names = re.findall(r"(\w+)\s+\w+\s*(?:,|$)", match["args"].strip() + ",")
        table = re.match(r"TABLE\s*\((.*?)\)\s*LANGUAGE", match["returns"], re.S)
        if table:
            names += re.findall(r"(\w+)\s+\w+\s*(?:,|$)", table[1].strip() + ",")
        found[match["name"]] = (names, match["body"])
    return found


def _newest_frozen() -> Path:
    return max(FROZEN.glob("*_claim_rsvp.sql"))


def test_the_newest_migration_installs_the_files_functions():
    """Editing the file means a new migration with a new frozen copy."""
    assert functions(_newest_frozen().read_text()) == functions(CURRENT.read_text())


def test_every_frozen_copy_is_installed_by_the_migration_of_its_number():
    for frozen in FROZEN.glob("*.sql"):
        number = frozen.name.split("_", 1)[0]
        [migration] = MIGRATIONS.glob(f"{number}_*.py")
        assert f'install("{frozen.name}"' in migration.read_text(), migration.name


def test_the_parser_reads_names_and_bodies():
    """The checks are only as good as the parser: the claim and the capacity rule."""
    parsed = functions(CURRENT.read_text())
    names, body = parsed["encore_claim_rsvp"]
    assert names[:5] == ["p_event", "p_user", "p_rsvp", "p_guests", "p_now"]
    assert "outcome" in names and "FOR UPDATE" in body
    assert parsed["encore_capacity_limit"][0] == ["p_max", "p_venue"]


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_function_in_the_database_is_the_files():
    """The database the migrations built holds exactly what the file says."""
    with connection.cursor() as cursor:
        for name, (names, body) in functions(CURRENT.read_text()).items():
            cursor.execute("SELECT proargnames, prosrc FROM pg_proc WHERE proname = %s", [name])
            rows = cursor.fetchall()
            assert len(rows) == 1, name
            installed_names, installed_body = rows[0]
            assert (list(installed_names or []), installed_body) == (names, body), name
