"""The repository is self-contained: its code and docs cite only files it holds.

Encore's contract lives in `docs/spec/`. A reference to a document outside the
repository (a path climbing out of it, or the names the design documents had before
they were carried in) leaves a newcomer with a pointer nobody can follow, and so does a
Markdown file name that no file of the repository answers to.
"""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
#: What a reader may be pointed at: the text files of these folders and files.
SCANNED = ("src", "docs", "bench", "scripts", ".ci", "README.md", "Makefile", "pyproject.toml")
TEXT = {".py", ".md", ".html", ".txt", ".toml", ".sh", ".sql", ".cfg", ".ini", ".yml", ".yaml", ""}
#: Where a bare Markdown name is looked up, after the citing file's own folder.
LOOKUP = ("", "docs", "docs/spec", "docs/architecture", "docs/adr")
#: Built, so this file does not itself name the folder it forbids.
OUTSIDE_FOLDER = "sha" + "red"
OUTSIDE = re.compile(
    rf"\.\./{OUTSIDE_FOLDER}|{OUTSIDE_FOLDER}/(?:spec|seeds|hooks)|\bseeds?[ /](?:000|004)\b", re.I
)
MARKDOWN_NAME = re.compile(r"(?<![\w.-])((?:\.\./|\./)?[\w./-]*[\w-]\.md)\b")


def _scanned_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *SCANNED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    own = Path(__file__).resolve()  # its examples of what the checks must catch
    return [
        ROOT / name
        for name in listed
        if Path(name).suffix in TEXT and (ROOT / name).is_file() and ROOT / name != own
    ]


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def _inside_a_url(text: str, start: int) -> bool:
    token_start = max(text.rfind(c, 0, start) for c in " \n(<`\"'") + 1
    return "://" in text[token_start:start]


def _resolves(name: str, citing: Path) -> bool:
    candidates = [citing.parent / name] + [ROOT / folder / name for folder in LOOKUP]
    return any(candidate.is_file() for candidate in candidates)


def outside_references(files: list[Path]) -> list[str]:
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{_shown(path)}:{number}: {line.strip()}")
    return found


def dangling_markdown_names(files: list[Path]) -> list[str]:
    found = []
    for path in files:
        text = path.read_text(errors="replace")
        for match in MARKDOWN_NAME.finditer(text):
            name = match.group(1)
            if _inside_a_url(text, match.start()) or _resolves(name, path):
                continue
            number = text.count("\n", 0, match.start()) + 1
            found.append(f"{_shown(path)}:{number}: {name}")
    return found


def test_the_contract_is_in_the_repository() -> None:
    for name in ("api", "ui", "domain", "quality", "seed-tables", "style"):
        assert (ROOT / "docs" / "spec" / f"{name}.md").is_file(), name
    for name in ("waitlist-design", "series-design", "README"):
        assert (ROOT / "docs" / "spec" / f"{name}.md").is_file(), name


def test_nothing_points_outside_the_repository() -> None:
    assert outside_references(_scanned_files()) == []


def test_every_markdown_file_named_exists() -> None:
    assert dangling_markdown_names(_scanned_files()) == []


@pytest.mark.parametrize(
    ("line", "outside"),
    [
        ("see ../" + OUTSIDE_FOLDER + "/spec/api.md", True),
        ("the contract (" + OUTSIDE_FOLDER + "/spec/ui.md)", True),
        ("Seed 000's path", True),
        ("see docs/spec/api.md", False),
    ],
)
def test_the_checks_see_a_reference_outside(tmp_path: Path, line: str, outside: bool) -> None:
    """The checks above are only as good as their patterns."""
    cited = tmp_path / "cited.py"
    cited.write_text(f'"""{line}"""\n')
    assert bool(outside_references([cited])) is outside


def test_the_checks_see_a_markdown_name_nothing_answers_to(tmp_path: Path) -> None:
    cited = ROOT / "docs" / "spec" / "api.md"
    assert dangling_markdown_names([cited]) == []
    missing = tmp_path / "cites.md"
    missing.write_text("as `quality.md` and `no-such-page.md` say\n")
    assert [line.split(": ")[1] for line in dangling_markdown_names([missing])] == [
        "no-such-page.md"
    ]
