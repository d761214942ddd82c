"""docs/operations.md names every setting an operator can set, and `.env.example` names
only real ones: the guide cannot fall behind the code without this test failing."""

import re

from .support import PROJECT_DIR, SRC_DIR

GUIDE = PROJECT_DIR / "docs" / "operations.md"
READ_IN_PYTHON = re.compile(
    r"""(?:env_(?:str|bool|int|list|hours)\(|os\.environ(?:\.get|\.setdefault)?[(\[])\s*["']([A-Z][A-Z0-9_]+)["']"""
)
READ_IN_SHELL = re.compile(r"\$\{([A-Z][A-Z0-9_]+):-")
#: Variables of the process environment itself, not Encore settings.
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE", "PATH", "HOME", "CI"}


def settings_read() -> dict[str, set[str]]:
    """Variable → the shipped files that read it."""
    sources = [
        *sorted((SRC_DIR / "encore" / "settings").glob("*.py")),
        SRC_DIR / "encore" / "gunicorn.py",
    ]
    found: dict[str, set[str]] = {}
    for path in sources:
        if path.exists():
            for name in READ_IN_PYTHON.findall(path.read_text()):
                found.setdefault(name, set()).add(path.name)
    for name in READ_IN_SHELL.findall((PROJECT_DIR / "scripts" / "run.sh").read_text()):
        found.setdefault(name, set()).add("run.sh")
    return {name: files for name, files in found.items() if name not in NOT_SETTINGS}


def documented() -> set[str]:
    return set(re.findall(r"`([A-Z][A-Z0-9_]+)`", GUIDE.read_text()))


def test_every_setting_the_code_reads_is_in_the_operations_guide() -> None:
    read = settings_read()
    assert len(read) > 20  # the scan found the settings at all
    missing = {name: sorted(files) for name, files in read.items() if name not in documented()}
    assert missing == {}, f"document these in docs/operations.md: {missing}"


def test_env_example_names_only_real_settings() -> None:
    example = (PROJECT_DIR / ".env.example").read_text()
    names = set(re.findall(r"^([A-Z][A-Z0-9_]+)=", example, flags=re.MULTILINE))
    assert names, ".env.example lists settings"
    unknown = names - set(settings_read())
    assert unknown == set(), f".env.example names settings the code never reads: {sorted(unknown)}"
    assert names <= documented()
