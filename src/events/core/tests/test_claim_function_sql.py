"""The claim function cannot drift from its SQL file (docs/spec/quality.md "Reliability").

`events/core/sql/claim_rsvp.sql` is the text the code is written against; each migration that
installs the function carries a frozen copy of what it installed
(`events/migrations/sql/`). A change to the file without a migration that installs it,
or a database whose function is not the file's, fails here.
"""

import re
import uuid
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from accounts.tests.factories import make_user
from bench.lock_tenure import TWIN, clocked_claims
from events.core.services import claim_function
from events.waitlist.tests.waitlist_races_support import waitlist_event

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


def test_the_function_keeps_no_clock_for_the_bench():
    """The bench measures the lock from outside (docs/spec/quality.md e1): production's
    result holds what the caller needs, and the bench's clocked twin is made from it."""
    names, body = functions(CURRENT.read_text())["encore_claim_rsvp"]
    assert not [name for name in names if name.endswith("_at")]
    assert "clock_timestamp" not in body and "statement_timestamp" not in body


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_benchs_clocked_twin_claims_as_the_function_does_and_stamps_the_lock():
    """`bench.lock_tenure.clocked_claims` routes claims to a twin made from the file's
    text; a claim through it wins as through the function, with its four stamps in order."""
    event = waitlist_event(5)
    claimer = make_user()
    with clocked_claims():
        with connection.cursor() as cursor:
            cursor.execute(
                claim_function._CALL, [event.pk, claimer.pk, uuid.uuid4(), 0, timezone.now()]
            )
            names = [column.name for column in cursor.description]
            row = dict(zip(names, cursor.fetchone(), strict=True))
        twin_call = claim_function._CALL
    assert TWIN in twin_call and TWIN not in claim_function._CALL
    production = functions(CURRENT.read_text())["encore_claim_rsvp"][0][5:]
    assert names == [*production, "arrived_at", "requested_at", "locked_at", "finished_at"]
    assert row["outcome"] == "won" and row["attendee_count"] == 1
    assert row["arrived_at"] <= row["requested_at"] <= row["locked_at"] <= row["finished_at"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_proc WHERE proname = %s", [TWIN])
        assert cursor.fetchone()[0] == 0  # dropped after
