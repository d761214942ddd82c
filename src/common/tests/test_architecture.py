"""The app layering of the brief holds, and no module imports itself back through others.

`common` ← `accounts` ← `notifications` ← `events`: an app may import only apps to its
left. Module-level import cycles are found by walking every project module's imports.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2]
LAYERS = ["common", "accounts", "notifications", "events"]


def _modules() -> Iterator[tuple[str, Path]]:
    for app in [*LAYERS, "encore"]:
        for path in (SRC / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(SRC).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


def _imports(path: Path, *, top_level_only: bool) -> set[str]:
    tree = ast.parse(path.read_text())
    nodes: list[ast.AST] = list(tree.body) if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_apps_depend_one_way_only() -> None:
    violations = []
    for name, path in _modules():
        app = name.split(".")[0]
        if app not in LAYERS:
            continue
        allowed = set(LAYERS[: LAYERS.index(app) + 1])
        for imported in _imports(path, top_level_only=False):
            target = imported.split(".")[0]
            if target in LAYERS and target not in allowed:
                violations.append(f"{name} imports {imported}")
    assert violations == []


def test_no_module_level_import_cycles() -> None:
    modules = dict(_modules())
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = {
            imp for imp in _imports(path, top_level_only=True) if imp in modules and imp != name
        }
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    # A package importing its own submodules (`__init__` re-exports) is not a cycle.
    real = [
        c
        for c in cycles
        if not all(part.startswith(c.split(" -> ")[0]) for part in c.split(" -> "))
    ]
    assert real == []
