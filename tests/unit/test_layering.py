"""The package, the tests and the benches import in one direction: both lean on sstools only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = {"sstools": {"tests", "bench"}, "tests": {"bench"}, "bench": {"tests"}}


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_folder_imports_what_it_must_not(folder: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imported_packages(path) & FORBIDDEN[folder])
        for path in sorted((ROOT / folder).rglob("*.py"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}
