"""Database: PostgreSQL when DATABASE_URL is set, else an embedded SQLite file.

SQLite runs in WAL mode with IMMEDIATE transactions so writers serialise at BEGIN
instead of failing on lock upgrade; PostgreSQL gets a short lock_timeout so a
contended row lock turns into a retryable 503 instead of a hung request.
"""

import dj_database_url

from .base import VAR_DIR
from .env import env_int, env_str

DB_LOCK_TIMEOUT_MS = env_int("DB_LOCK_TIMEOUT_MS", 5000)

_database_url = env_str("DATABASE_URL")

if _database_url:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=0)}
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"]["options"] = f"-c lock_timeout={DB_LOCK_TIMEOUT_MS}"
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
