"""Recognise a lock wait that ran out, and a database out of reach, on PostgreSQL and SQLite."""

from django.db import InterfaceError, OperationalError


def is_lock_timeout(error: BaseException) -> bool:
    """True for PostgreSQL's lock_timeout (55P03) and SQLite's 'database is locked'."""
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if sqlstate == "55P03":
        return True
    return "database is locked" in str(error) or "lock timeout" in str(error)


def is_database_unavailable(error: BaseException | None) -> bool:
    """True when the database cannot be used at all (refused, dropped, not open yet).

    Django raises `InterfaceError` for a connection that is already gone and
    `OperationalError` for one that cannot be made or breaks mid-query; a lock wait that
    ran out is an `OperationalError` too but means "busy", so it is excluded here.
    """
    if isinstance(error, InterfaceError):
        return True
    return isinstance(error, OperationalError) and not is_lock_timeout(error)
