"""The structure the brief and issue 10 ask for, checked on every import of `src/`, also
the imports inside functions.

- The layering contract in `pyproject.toml` (`[tool.importlinter]`) holds: apps depend
  one way (`common` ← `accounts` ← `notifications` ← `events` ← `encore`), and inside an
  app entry points sit above schemas, schemas above services, services above the read
  side (selectors, the eligibility pipeline, errors), the read side above models.
  `make lint` runs the same contract with `lint-imports`.
- What a layers contract cannot see: no import circle at all, between any two modules
  of any layer (a circle inside one layer is still a place where a change in one file
  silently reaches another), and no module too long to hold in one's head.
"""

import sys
from pathlib import Path

import grimp
from importlinter import cli

SRC = Path(__file__).resolve().parents[2]
PYPROJECT = SRC.parent / "pyproject.toml"
ROOTS = ("common", "accounts", "notifications", "events", "encore")
MAX_LINES = 400


def test_the_layering_contract_holds() -> None:
    assert (
        cli.lint_imports(config_filename=str(PYPROJECT), no_cache=True) == cli.EXIT_STATUS_SUCCESS
    )


def _import_circles(graph: grimp.ImportGraph) -> list[str]:
    """Each import A → B whose B leads back to A, written as the circle it closes."""
    circles = set()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                circles.add(" -> ".join((importer, *back)))
    return sorted(circles)


def test_there_is_no_import_circle_anywhere() -> None:
    sys.path.insert(0, str(SRC))
    graph = grimp.build_graph(*ROOTS, exclude_type_checking_imports=True, cache_dir=None)
    assert _import_circles(graph) == []


def test_the_circle_finder_sees_a_circle_through_a_function_body(tmp_path: Path) -> None:
    """The check above is only as good as its finder: a circle hidden in a function."""
    package = tmp_path / "circled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circled import b\n")
    (package / "b.py").write_text("def later():\n    from circled import a\n")
    (package / "c.py").write_text("from circled import a\n")
    sys.path.insert(0, str(tmp_path))
    try:
        graph = grimp.build_graph("circled", cache_dir=None)
    finally:
        sys.path.remove(str(tmp_path))
    assert _import_circles(graph) == [
        "circled.a -> circled.b -> circled.a",
        "circled.b -> circled.a -> circled.b",
    ]


def test_no_module_is_longer_than_a_reader_can_hold() -> None:
    long = {
        str(path.relative_to(SRC)): lines
        for root in ROOTS
        for path in (SRC / root).rglob("*.py")
        if "migrations" not in path.parts and "tests" not in path.parts
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}
