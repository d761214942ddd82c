"""`python -m bench` (what `make bench` runs) from the repository root.

Runs every registered scenario on PostgreSQL and prints one table row each. The
database comes from DATABASE_URL, else postgres://postgres@127.0.0.1:5432/encore_bench;
it is created when missing and migrated on every run. `--only a1,d0` picks rows.
"""

import argparse
import logging
import os
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/encore_bench"


def ensure_database(url: str) -> None:
    """Create the bench database when it does not exist yet (needs CREATEDB)."""
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import conninfo_to_dict

    name = str(conninfo_to_dict(url)["dbname"])
    with psycopg.connect(url, dbname="postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name}")


def plain_static_files() -> None:
    """Pages render with the plain static storage: the bench never runs `collectstatic`,
    so production's manifest storage would refuse every `{% static %}` of the h-rows. The
    URLs lose their hash; the work of the page is the same.
    """
    from django.conf import settings
    from django.test import override_settings

    plain = "django.contrib.staticfiles.storage.StaticFilesStorage"
    override_settings(STORAGES={**settings.STORAGES, "staticfiles": {"BACKEND": plain}}).enable()


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "encore.settings")
    # The production configuration (DEBUG off: no query log in the figures), with a
    # throwaway key and the test client's host over plain HTTP.
    os.environ.setdefault("DJANGO_SECRET_KEY", f"bench-{secrets.token_urlsafe(48)}")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "false")
    sys.path.insert(0, str(ROOT / "src"))
    ensure_database(url)

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)
    plain_static_files()
    # Per-request INFO lines would bury the table (and cost time inside the figures).
    logging.disable(logging.INFO)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--only", default="", help="comma-separated row ids, e.g. a1,d0")
    parser.add_argument(
        "--runs",
        type=int,
        default=None,
        help="timed runs after the warm-up, every row (default: 5, or a row's own number)",
    )
    args = parser.parse_args(argv)

    url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    if not url.startswith(("postgres://", "postgresql://")):
        print(f"bench: DATABASE_URL must point at PostgreSQL, not {url!r}", file=sys.stderr)
        return 2
    setup_django(url)

    from bench.harness import format_table, run_scenario, runs_label
    from bench.registry import REGISTRY
    from bench.scenarios import load_all

    load_all()
    wanted = [i.strip() for i in args.only.split(",") if i.strip()] or sorted(REGISTRY)
    unknown = sorted(set(wanted) - set(REGISTRY))
    if unknown:
        print(f"bench: unknown ids {unknown}; known: {sorted(REGISTRY)}", file=sys.stderr)
        return 2
    results = [run_scenario(REGISTRY[i], runs=args.runs) for i in wanted]
    print(format_table(results))
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"\n{runs_label(results)} timed runs after 1 warm-up; database {url.rsplit('/', 1)[-1]}; "
        f"load average {load} on {os.cpu_count()} CPUs (other work on the machine inflates times)"
    )
    return 1 if any(r.problem for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
