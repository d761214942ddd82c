"""Database: PostgreSQL when DATABASE_URL is set, else an embedded SQLite file.

SQLite runs in WAL mode with IMMEDIATE transactions so writers serialise at BEGIN
instead of failing on lock upgrade; PostgreSQL gets a short lock_timeout so a
contended row lock turns into a retryable 503 instead of a hung request.

PostgreSQL connections persist: each gunicorn worker (and worker thread) keeps its
connection for `DB_CONN_MAX_AGE` seconds instead of paying a connect per request, and
`CONN_HEALTH_CHECKS` tests a reused connection before a request relies on it, so a
database restart costs one failed ping, not a failed request. The server's
`max_connections` must cover gunicorn workers + Celery worker threads (docs/operations.md).
"""

import dj_database_url

from .base import VAR_DIR
from .env import env_int, env_str

DB_LOCK_TIMEOUT_MS = env_int("DB_LOCK_TIMEOUT_MS", 5000)
DB_CONN_MAX_AGE = env_int("DB_CONN_MAX_AGE", 60)
# A dead server must fail a request (503) in seconds, not after the OS's TCP timeout.
DB_CONNECT_TIMEOUT = env_int("DB_CONNECT_TIMEOUT", 5)

_database_url = env_str("DATABASE_URL")

if _database_url:
    DATABASES = {
        "default": dj_database_url.parse(
            _database_url, conn_max_age=DB_CONN_MAX_AGE, conn_health_checks=True
        )
    }
    DATABASES["default"].setdefault("OPTIONS", {})
    # Generic plans for the statements Encore prepares (ADR 0028): Django's own queries
    # are not prepared, so this reaches only `common.compiled_query`'s prepared ones.
    DATABASES["default"]["OPTIONS"]["options"] = (
        f"-c lock_timeout={DB_LOCK_TIMEOUT_MS} -c plan_cache_mode=force_generic_plan"
    )
    DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", DB_CONNECT_TIMEOUT)
    DATABASES["default"].setdefault("TEST", {})
    if env_str("TEST_DATABASE_NAME"):
        DATABASES["default"]["TEST"]["NAME"] = env_str("TEST_DATABASE_NAME")
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(VAR_DIR / "encore.sqlite3")),
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": max(DB_LOCK_TIMEOUT_MS // 1000, 1),
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

IS_POSTGRES = DATABASES["default"]["ENGINE"].endswith("postgresql")
