"""Recognise a lock wait that ran out, a database out of reach, and an error worth a retry,
on PostgreSQL and SQLite."""

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


#: SQLSTATE classes worth a retry: connection exceptions (08), transaction rollback
#: (40: deadlock 40P01, serialization 40001), insufficient resources (53), operator
#: intervention (57: admin shutdown); and lock_not_available (55P03, our lock_timeout).
TRANSIENT_SQLSTATE_PREFIXES = ("08", "40", "53", "57")
TRANSIENT_MESSAGES = ("deadlock", "database is locked", "connection", "server closed", "timeout")


def is_transient_db_error(error: BaseException) -> bool:
    """A database error that may pass if tried again (lost connection, deadlock, lock wait);
    anything else, a programming error above all, is not (a task retries only these)."""
    if isinstance(error, InterfaceError):
        return True
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    if sqlstate:
        return sqlstate == "55P03" or str(sqlstate).startswith(TRANSIENT_SQLSTATE_PREFIXES)
    message = str(error).lower()
    return any(marker in message for marker in TRANSIENT_MESSAGES)
