"""Words are made in one place per face: no Russian string literal lives outside the catalogues.

The three catalogues: the API face's (``sstools/texts/``), the agent's (``sstools/agent/texts/``)
and the web pages' (``sstools/web/strings/``). The rest of ``sstools`` holds Russian only as
language data or demo content, each place named below with why. Docstrings and comments do not
count; every other string literal does, f-string parts included.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sstools"
CYRILLIC = re.compile("[\u0400-\u04ff]")

CATALOGUES = ("sstools/texts/", "sstools/agent/texts/", "sstools/web/strings/")
ALLOWED = {
    "sstools/russian.py": "language data: genitive month names, and «ё» folding to «е»",
    "sstools/sandbox/": "demo content: the sandbox's dashboards, charts and data are Russian",
    "sstools/testing/": "fakes: a fake Superset's objects and a scripted model's replies",
}


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def russian_literals(path: Path) -> list[str]:
    """``path:line: text`` for each string literal with Cyrillic, docstrings left out."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = _docstrings(tree)
    where = path.relative_to(ROOT).as_posix()
    return [
        f"{where}:{node.lineno}: {node.value[:60]!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and CYRILLIC.search(node.value)
    ]


def _placed(relative: str) -> bool:
    return relative.startswith((*CATALOGUES, *ALLOWED))


def test_no_russian_string_lives_outside_the_catalogues() -> None:
    scanned = [
        p for p in sorted(PACKAGE.rglob("*.py")) if not _placed(p.relative_to(ROOT).as_posix())
    ]
    assert len(scanned) > 100, f"the scan read {len(scanned)} modules: is {PACKAGE} the package?"
    offenders = [line for path in scanned for line in russian_literals(path)]
    assert offenders == [], "Russian outside the catalogues:\n" + "\n".join(offenders)


def test_the_scan_sees_russian_where_it_is() -> None:
    # The catalogues hold Russian, so a scan that finds none there is blind.
    for catalogue in ("sstools/texts/tasks.py", "sstools/web/strings/_general.py"):
        assert russian_literals(ROOT / catalogue)


def test_every_allowed_place_exists_and_holds_russian() -> None:
    # An allow-list entry whose Russian has moved out is one to delete.
    for place in ALLOWED:
        paths = [ROOT / place] if place.endswith(".py") else sorted((ROOT / place).rglob("*.py"))
        assert any(russian_literals(path) for path in paths), place
