"""Recognise a lock wait that ran out, on PostgreSQL and SQLite alike."""

from django.db import OperationalError


def is_lock_timeout(error: BaseException) -> bool:
    """True for PostgreSQL's lock_timeout (55P03) and SQLite's 'database is locked'."""
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if sqlstate == "55P03":
        return True
    return "database is locked" in str(error) or "lock timeout" in str(error)
