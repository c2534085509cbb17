"""The layers of docs/architecture.md hold at import level: its table is the rule this test reads.

Every import counts, at module level or inside a function. An area of ``sstools`` the table does
not place fails too, so a new folder has to be given its layer.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "docs" / "architecture.md"
CORE = "core"
EVERYTHING_BUT = "everything but"
# The tests and benches lean on sstools only; sstools imports neither.
OUTSIDE = {"sstools": {"tests", "bench"}, "tests": {"bench"}, "bench": {"tests"}}


@cache
def allowed_imports() -> dict[str, frozenset[str]]:
    """Area → the areas it may import, from the table's rows (``| areas | what | may import |``)."""
    rows: list[tuple[list[str], str]] = []
    for line in TABLE.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            rows.append((re.findall(r"`([\w.]+)`", cells[0]), cells[2]))
    core = set(rows[0][0])
    every = {area for areas, _ in rows for area in areas}
    allowed: dict[str, frozenset[str]] = {}
    for areas, may in rows:
        named = set(re.findall(r"`([\w.]+)`", may)) | (core if CORE in may.split(",")[0] else set())
        if may.strip() == "everything":
            named = every
        elif may.startswith(EVERYTHING_BUT):
            named = every - named
        for area in areas:
            allowed[area] = frozenset(named | {area})
    return allowed


def area_of(module: str) -> str:
    """``sstools.agent.run.runtime`` → ``agent``; the package itself → ``sstools``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def module_name(path: Path) -> str:
    dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return dotted.removesuffix(".__init__")


def sstools_imports(source: str, module: str) -> set[str]:
    """Every ``sstools`` module imported; ``from sstools import clock`` is ``sstools.clock``."""
    package = module if module.count(".") == 0 else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found |= {_submodule(base, alias.name) for alias in node.names}
    return {name for name in found if name == "sstools" or name.startswith("sstools.")}


def _submodule(base: str, name: str) -> str:
    """``from package import name`` names a module when ``name`` is one, else ``package``."""
    folder = ROOT.joinpath(*base.split("."))
    is_module = (folder / f"{name}.py").exists() or (folder / name).is_dir()
    return f"{base}.{name}" if is_module else base


def broken_layers(source: str, module: str) -> list[str]:
    """The imports of ``module`` its area may not make, as ``area → imported module``."""
    area = area_of(module)
    may = allowed_imports()[area]
    return sorted(
        f"{area} → {name}" for name in sstools_imports(source, module) if area_of(name) not in may
    )


PACKAGE_FILES = sorted((ROOT / "sstools").rglob("*.py"))


def test_the_table_places_every_area_of_the_package() -> None:
    areas = {area_of(module_name(path)) for path in PACKAGE_FILES}
    assert areas - set(allowed_imports()) == set()


@pytest.mark.parametrize("path", PACKAGE_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_import_keeps_to_its_layer(path: Path) -> None:
    assert broken_layers(path.read_text(), module_name(path)) == []


def _nevers() -> list[tuple[str, str]]:
    allowed = allowed_imports()
    return [
        (area, other) for area in sorted(allowed) for other in sorted(set(allowed) - allowed[area])
    ]


@pytest.mark.parametrize(("area", "forbidden"), _nevers())
def test_each_never_fails_when_broken_on_purpose(area: str, forbidden: str) -> None:
    """A module of ``area`` importing ``forbidden`` (here inside a function) is caught."""
    target = "sstools" if forbidden == "sstools" else f"sstools.{forbidden}"
    source = f"def late():\n    import {target}\n"
    assert broken_layers(source, f"sstools.{area}.planted") == [f"{area} → {target}"]


def test_the_rule_has_the_nevers_the_architecture_names() -> None:
    """The agent reaches the domain over HTTP only; the Superset client knows nothing above it."""
    allowed = allowed_imports()
    assert {"domain", "superset", "git_store", "tasks", "web"}.isdisjoint(allowed["agent"])
    assert {"agent", "web", "app", "cli"}.isdisjoint(allowed["domain"])
    assert allowed["superset"] <= allowed["config"] | {"superset"}
    assert {"domain", "agent", "web"}.isdisjoint(allowed["http"])


def _top_level_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("folder", sorted(OUTSIDE))
def test_the_package_tests_and_benches_import_one_way(folder: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(_top_level_imports(path) & OUTSIDE[folder])
        for path in sorted((ROOT / folder).rglob("*.py"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}


# Inside the agent, its HTTP face is the top: a route may use any room of the agent, no room of
# the agent uses a route (the app mounts them).
AGENT_ROUTES = "sstools.agent.routes"
AGENT_FILES = sorted((ROOT / "sstools" / "agent").rglob("*.py"))


def reaches_the_routes(source: str, module: str) -> list[str]:
    """The agent's route modules ``module`` imports when it is not one of them."""
    if module.startswith(AGENT_ROUTES):
        return []
    imported = sstools_imports(source, module)
    return sorted(name for name in imported if name.startswith(AGENT_ROUTES))


@pytest.mark.parametrize("path", AGENT_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_room_of_the_agent_imports_its_routes(path: Path) -> None:
    assert reaches_the_routes(path.read_text(), module_name(path)) == []


def test_a_room_reaching_up_to_the_routes_is_caught() -> None:
    planted = "def late():\n    from sstools.agent.routes import deps\n"
    assert reaches_the_routes(planted, "sstools.agent.run.planted") == ["sstools.agent.routes.deps"]
