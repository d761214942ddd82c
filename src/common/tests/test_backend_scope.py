"""Which tests CI's SQLite run keeps (`--backend-dependent`, src/conftest.py, ADR 0035).

The SQLite run keeps the tests whose outcome the database backend can change: those that
use the suite's database in their own process. Each test below asks the rule about
itself, a real collected item with its real markers and fixtures.
"""

import pytest

from conftest import backend_dependent


def test_a_test_without_the_database_runs_once(request: pytest.FixtureRequest) -> None:
    assert not backend_dependent(request.node)


@pytest.mark.django_db
def test_a_test_marked_for_the_database_runs_on_both(request: pytest.FixtureRequest) -> None:
    assert backend_dependent(request.node)


def test_a_test_asking_for_the_database_fixture_runs_on_both(
    db: None, request: pytest.FixtureRequest
) -> None:
    assert backend_dependent(request.node)


@pytest.mark.own_processes
@pytest.mark.django_db
def test_a_test_with_processes_of_its_own_runs_once(request: pytest.FixtureRequest) -> None:
    assert not backend_dependent(request.node)


@pytest.mark.browser
@pytest.mark.django_db
def test_a_browser_test_runs_once(request: pytest.FixtureRequest) -> None:
    assert not backend_dependent(request.node)
