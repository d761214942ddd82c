"""The database errors `common.api` maps itself, without a route to provoke them."""

from django.db import DataError, InterfaceError, OperationalError

from common.api import _error_body


def test_a_value_the_database_refuses_is_400_invalid() -> None:
    body, status, retry = _error_body(DataError("value too long for type character varying(5)"))
    assert (status, body["code"], retry) == (400, "invalid", None)


def test_a_lost_connection_is_503_unavailable_with_retry_after() -> None:
    for error in (InterfaceError("connection already closed"), OperationalError("refused")):
        body, status, retry = _error_body(error)
        assert (status, body["code"]) == (503, "unavailable")
        assert retry is not None and retry >= 1


def test_a_lock_timeout_stays_503_busy() -> None:
    body, status, _ = _error_body(OperationalError("canceling statement due to lock timeout"))
    assert (status, body["code"]) == (503, "busy")
