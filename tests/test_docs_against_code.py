"""Prose that quotes the code is read back against it: the README's layout, the tool count, the
settings tables, the task kinds, the metrics, the paths, modules and make targets the docs name,
and every relative link.

Each check parses only what the prose lists (a name ending in ``/`` or ``.py`` that begins a
column, a backticked variable in a table's first cell, …), so the explanations around it stay
free text.
"""

from __future__ import annotations

import importlib
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import typer.main
from prometheus_client.metrics import MetricWrapperBase
from pydantic import SecretStr
from pydantic_settings import BaseSettings
from typer.core import TyperGroup

from sstools import metrics
from sstools.agent.executor import Outcome
from sstools.agent.tools import CATALOGUE
from sstools.cli import app as cli_app
from sstools.config import Settings
from sstools.evaluation.scenarios import load_scenarios
from sstools.sandbox import SandboxSettings
from sstools.tasks import TaskKind

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PACKAGE = ROOT / "sstools"

# -- the README's layout ------------------------------------------------------------------------

# A name begins the line or follows two spaces (a second column); one space means it is prose.
LAYOUT_NAME = re.compile(r"(?:^|(?<=\s\s))([\w.]+(?:/[\w.]+)*(?:/|\.py))(?=\s|$)")


def layout_lines() -> list[str]:
    section = README.read_text().split("\n## Layout\n", 1)[1]
    return section.split("```", 2)[1].splitlines()


@cache
def layout() -> dict[Path, frozenset[str]]:
    """Folder → the names the layout lists in it; indentation says which folder a line is in.

    A line that does not begin with a name continues the explanation of the line above it.
    """
    listed: defaultdict[Path, set[str]] = defaultdict(set)
    folders: list[tuple[int, Path]] = []
    for line in layout_lines():
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        names = LAYOUT_NAME.findall(line)
        if not names or not stripped.startswith(names[0]):
            continue
        while folders and folders[-1][0] >= indent:
            folders.pop()
        parent = folders[-1][1] if folders else ROOT
        listed[parent].update(names)
        if names[0].endswith("/"):
            folders.append((indent, parent / names[0]))
    return {folder: frozenset(names) for folder, names in listed.items()}


def modules_and_folders(folder: Path) -> set[str]:
    found = set()
    for entry in folder.iterdir():
        if entry.is_dir() and entry.name != "__pycache__" and not entry.name.startswith("."):
            found.add(f"{entry.name}/")
        elif entry.suffix == ".py" and entry.name != "__init__.py":
            found.add(entry.name)
    return found


def test_the_layout_names_only_what_exists() -> None:
    missing = [
        str((folder / name).relative_to(ROOT))
        for folder, names in layout().items()
        for name in names
        if not (folder / name).exists()
    ]
    assert not missing, f"README.md's layout names what does not exist: {missing}"


@pytest.mark.parametrize("folder", [PACKAGE, PACKAGE / "agent"], ids=["sstools", "agent"])
def test_the_layout_lists_every_module_and_folder(folder: Path) -> None:
    listed = layout().get(folder, frozenset())
    unlisted = sorted(modules_and_folders(folder) - listed)
    assert not unlisted, f"README.md's layout omits from {folder.relative_to(ROOT)}/: {unlisted}"


# -- the number of tools -----------------------------------------------------------------------

UNITS = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen"),
    "nineteen",
)
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70}


def number(word: str) -> int | None:
    """``24``, ``twenty-four`` or ``nine`` → the number; any other word → None."""
    if word.isdigit():
        return int(word)
    tens, _, unit = word.partition("-")
    if tens in TENS and (not unit or unit in UNITS[1:10]):
        return TENS[tens] + (UNITS.index(unit) if unit else 0)
    return UNITS.index(word) if word in UNITS else None


def test_the_tool_count_is_the_catalogue_s() -> None:
    # performance.md is `make bench`'s measurement: it names the count of the run it measured.
    prose = [README, *(doc for doc in sorted(DOCS.glob("*.md")) if doc.name != "performance.md")]
    counts = {
        f"{doc.name}: {match.group(0)}": number(match.group(1).lower())
        for doc in prose
        for match in re.finditer(r"\b(\d+|[A-Za-z]+(?:-[a-z]+)?) tools\b", doc.read_text())
    }
    stated = {quote: count for quote, count in counts.items() if count is not None}
    assert stated, "README.md no longer says how many tools there are"
    wrong = [quote for quote, count in stated.items() if count != len(CATALOGUE)]
    assert not wrong, f"the catalogue has {len(CATALOGUE)} tools: {wrong}"


# -- docs/configuration.md ---------------------------------------------------------------------

CONFIGURATION = DOCS / "configuration.md"
SETTINGS: dict[str, tuple[str, type[BaseSettings]]] = {
    "Service settings": ("SSTOOLS_", Settings),
    "Sandbox settings": ("SSTOOLS_SANDBOX_", SandboxSettings),
}
TESTS_SECTION = "Tests"


@cache
def configuration_tables() -> dict[str, dict[str, str]]:
    """Section → {documented variable: its default cell}."""
    tables: dict[str, dict[str, str]] = {}
    section = ""
    for line in CONFIGURATION.read_text().splitlines():
        if line.startswith("## "):
            section = line.removeprefix("## ").strip()
        elif line.startswith("| `SSTOOLS_"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            tables.setdefault(section, {})[cells[0].strip("`")] = cells[1]
    return tables


def variables(prefix: str, settings: type[BaseSettings]) -> dict[str, object]:
    return {
        f"{prefix}{name.upper()}": field.get_default(call_default_factory=True)
        for name, field in settings.model_fields.items()
    }


@pytest.mark.parametrize("section", list(SETTINGS))
def test_each_settings_table_names_exactly_its_settings(section: str) -> None:
    documented = set(configuration_tables().get(section, {}))
    defined = set(variables(*SETTINGS[section]))
    assert not defined - documented, f"undocumented in «{section}»: {defined - documented}"
    assert not documented - defined, f"documented, but no such setting: {documented - defined}"


def default_is(cell: str, default: object) -> bool:
    """The default as the table writes it: ``unset``, one literal in backticks, or prose (for a
    default worked out at start-up, which the class leaves as None)."""
    if cell == "unset":
        return default is None or (
            isinstance(default, SecretStr) and not default.get_secret_value()
        )
    literal = re.fullmatch(r"`([^`]+)`", cell)
    if literal is None:
        return default is None
    value = literal.group(1)
    if isinstance(default, int | float):
        return re.fullmatch(r"-?\d+(\.\d+)?", value) is not None and float(value) == default
    if isinstance(default, list):
        return bool(json.loads(value) == default)
    return value == str(default)


@pytest.mark.parametrize("section", list(SETTINGS))
def test_each_documented_default_is_the_code_s(section: str) -> None:
    defaults = variables(*SETTINGS[section])
    wrong = {
        name: (cell, defaults[name])
        for name, cell in configuration_tables().get(section, {}).items()
        if name in defaults and not default_is(cell, defaults[name])
    }
    assert not wrong, f"documented default ≠ the code's (cell, code): {wrong}"


def test_the_test_variables_are_the_ones_the_tests_read() -> None:
    sources = [
        *ROOT.joinpath("tests").rglob("*.py"),
        *ROOT.joinpath("bench").rglob("*.py"),
        *PACKAGE.joinpath("testing").rglob("*.py"),
    ]
    settings = {name for prefix, cls in SETTINGS.values() for name in variables(prefix, cls)}
    read = {
        name
        for source in sources
        for name in re.findall(r"(?:environ\.get|getenv)\(\s*\"(SSTOOLS_\w+)\"", source.read_text())
    } - settings
    assert set(configuration_tables().get(TESTS_SECTION, {})) == read


# -- docs/tasks.md, docs/evaluation.md, docs/operations.md -------------------------------------


def test_every_task_kind_is_named_where_tasks_md_lists_them() -> None:
    intro = (DOCS / "tasks.md").read_text().split("\n\n")[1]
    words = set(re.findall(r"\w+", intro))
    assert not {kind.value for kind in TaskKind} - words, intro


def test_the_default_scenarios_are_as_evaluation_md_counts_them() -> None:
    text = (DOCS / "evaluation.md").read_text()
    stated = re.search(r"into (\d+) scenarios on the demo sandbox: kinds (.+?)\n\n", text, re.S)
    assert stated is not None, "evaluation.md no longer counts the default scenarios"
    scenarios = load_scenarios(None).scenarios
    assert int(stated.group(1)) == len(scenarios)
    assert {scenario.kind for scenario in scenarios} <= set(re.findall(r"`(\w+)`", stated.group(2)))


@cache
def metrics_table() -> dict[str, list[str]]:
    """Metric → its row's cells (metric, type, labels, what) in docs/operations.md."""
    rows = {}
    for line in (DOCS / "operations.md").read_text().splitlines():
        if line.startswith("| `sstools_"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells
    return rows


def test_the_metrics_table_is_the_metrics_module() -> None:
    defined = {}
    for value in vars(metrics).values():
        if isinstance(value, MetricWrapperBase):
            for family in value.describe():
                suffix = "_total" if family.type == "counter" else ""
                defined[family.name + suffix] = family.type
    documented = {name: cells[1] for name, cells in metrics_table().items()}
    assert documented == defined


def test_the_tool_call_outcomes_are_the_executor_s() -> None:
    what = metrics_table()["sstools_tool_calls_total"][3]
    assert set(re.findall(r"`(\w+)`", what)) == {outcome.value for outcome in Outcome}


# -- links -------------------------------------------------------------------------------------


def test_the_readme_links_every_doc() -> None:
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)", README.read_text()))
    assert not {doc.name for doc in DOCS.glob("*.md")} - linked


def anchors(doc: Path) -> set[str]:
    """GitHub's anchors for a Markdown file's headings (outside code fences)."""
    found, fenced = set(), False
    for line in doc.read_text().splitlines():
        fenced ^= line.startswith("```")
        heading = re.match(r"#+ (.+)", line)
        if heading and not fenced:
            words = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower())
            found.add(words.replace(" ", "-"))
    return found


@pytest.mark.parametrize("doc", [README, *sorted(DOCS.glob("*.md"))], ids=lambda doc: doc.name)
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = doc.parent / path if path else doc
        if not linked.exists() or (anchor and anchor not in anchors(linked)):
            broken.append(target)
    assert not broken, f"{doc.name}: {broken}"


# -- code the prose names ----------------------------------------------------------------------

# `sstools.db`, `sstools/…/acceptance.yaml`: files, not modules.
FILE_SUFFIXES = ("db", "sqlite", "yaml", "md", "txt", "json")


def names_code(dotted: str) -> bool:
    """``sstools.tasks.serializer`` or ``sstools.tasks._runtime.APPLICATION_VERSION`` exists."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


@pytest.mark.parametrize("doc", [README, *sorted(DOCS.glob("*.md"))], ids=lambda doc: doc.name)
def test_every_path_and_module_named_exists(doc: Path) -> None:
    text = doc.read_text()
    paths = [p for p in re.findall(r"`(sstools/[^`\s*<>]*)`", text) if not (ROOT / p).exists()]
    modules = [
        name
        for name in re.findall(r"`(sstools(?:\.\w+)+)`", text)
        if name.rsplit(".", 1)[1] not in FILE_SUFFIXES and not names_code(name)
    ]
    assert not paths + modules, f"{doc.name} names what is not there: {paths + modules}"


def test_every_make_target_named_exists() -> None:
    targets = set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(), re.MULTILINE))
    named = {
        f"{doc.name}: make {target}"
        for doc in [README, *DOCS.glob("*.md")]
        for target in re.findall(r"(?:`|^)make ([a-z][\w-]*)", doc.read_text(), re.MULTILINE)
        if target not in targets
    }
    assert not named, f"no such target: {sorted(named)}"


# -- the command line --------------------------------------------------------------------------


def commands(group: TyperGroup, words: str = "sstools") -> Iterator[tuple[str, list[str]]]:
    """Each command's words (``sstools users add``) and its long options."""
    for name, command in group.commands.items():
        if isinstance(command, TyperGroup):
            yield from commands(command, f"{words} {name}")
        else:
            options = [opt for param in command.params for opt in param.opts]
            yield f"{words} {name}", [opt for opt in options if opt.startswith("--")]


def command_table() -> dict[str, str]:
    """``sstools users add`` → its usage cell in the README's table (``\\|`` is a literal bar)."""
    table = {}
    for line in README.read_text().splitlines():
        if line.startswith("| `sstools "):
            usage = re.split(r"(?<!\\)\|", line)[1].strip().strip("`")
            words = re.match(r"[a-z][\w-]*(?: [a-z][\w-]*)*", usage)
            assert words is not None, line
            table[words.group(0)] = usage
    return table


def test_every_command_and_option_is_in_the_readme_s_table() -> None:
    table = command_table()
    missing = []
    for words, options in commands(typer.main.get_group(cli_app)):
        usage = table.get(words)
        if usage is None:
            missing.append(words)
            continue
        missing += [f"{words} {option}" for option in options if option not in usage]
    assert not missing, f"README.md's command table lacks: {missing}"
