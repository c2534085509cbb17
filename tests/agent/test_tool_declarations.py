"""A tool is declared once: its module and its texts; every other fact about it is checked here.

Adding a tool means its builder under ``@assistant_tool`` (its title comes from
``sstools/agent/texts/tools.py``: without one the catalogue is not built) and its words in
``sstools/agent/routing/tools.yaml``. What else it needs is derived (the shipped passage vectors,
tests/agent/test_passage_vectors.py) or named below when missing.
"""

from __future__ import annotations

import re
from pathlib import Path

from sstools.agent.offline.answers import RENDERERS
from sstools.agent.routing.catalogue import routing_texts
from sstools.agent.texts.tools import TITLES
from sstools.agent.tools import CATALOGUE, ToolSpec
from sstools.agent.tools.shaping import task_record
from sstools.testing.recorded import router_cases

DOCS = Path(__file__).parents[2] / "docs" / "agent.md"
TOOL_COUNT = 27


def _documented() -> dict[str, list[str]]:
    """docs/agent.md's tool table: name → its kind, env, role and affinity cells."""
    section = DOCS.read_text(encoding="utf-8").split("\n## Tools\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if found := re.match(r"^\| `(\w+)` \|(.*)\|$", line):
            rows[found.group(1)] = [cell.strip() for cell in found.group(2).split("|")]
    return rows


def _row_problems(tool: ToolSpec, cells: list[str]) -> list[str]:
    kind, env, role, affinity = cells
    problems = []
    per_call = "read" in kind and "write" in kind  # «read for queries, write for DML»
    if not kind.startswith(tool.kind.value) or per_call != (tool.classify is not None):
        problems.append(f"kind {kind!r}, not {tool.kind.value}")
    if env.startswith("yes") != tool.needs_env:
        problems.append(f"env {env!r}, not {'yes' if tool.needs_env else '–'}")
    if not role.startswith(tool.min_role.value):
        problems.append(f"role {role!r}, not {tool.min_role.value}")
    expected = {"always"} if tool.always else {item.value for item in tool.affinity} or {"–"}
    if set(affinity.split(", ")) != expected:
        problems.append(f"affinity {affinity!r}, not {', '.join(sorted(expected))}")
    return problems


def _answered_by_its_task(tool: ToolSpec) -> bool:
    # Every answer is tried as a task record first: a tool answering one needs no renderer.
    return tool.starts_task or tool.shape is task_record


def _missing(tool: ToolSpec, documented: dict[str, list[str]], labelled: set[str]) -> list[str]:
    name, missing = tool.name, []
    if name not in routing_texts():
        missing.append("no entry in sstools/agent/routing/tools.yaml")
    if name not in RENDERERS:
        missing.append("no renderers in sstools/agent/offline/answers RENDERERS")
    elif not RENDERERS[name] and not _answered_by_its_task(tool):
        missing.append("no renderer in RENDERERS, and its answer is not a task record")
    if name not in documented:
        missing.append("no row in the table of docs/agent.md#tools")
    else:
        missing += [f"docs/agent.md says {it}" for it in _row_problems(tool, documented[name])]
    if name not in labelled:
        missing.append("no request for it in bench/data/router_eval.jsonl")
    return [f"{name}: {what}" for what in missing]


def test_every_tool_is_declared_whole_and_nothing_names_a_tool_that_is_gone() -> None:
    documented, labelled = _documented(), {name for case in router_cases() for name in case.tools}
    missing = [line for tool in CATALOGUE.values() for line in _missing(tool, documented, labelled)]
    for where, names in (
        ("sstools/agent/texts/tools.py TITLES", set(TITLES)),
        ("sstools/agent/routing/tools.yaml", set(routing_texts())),
        ("RENDERERS", set(RENDERERS)),
        ("docs/agent.md", set(documented)),
        ("bench/data/router_eval.jsonl", labelled),
    ):
        missing += [
            f"{name}: in {where}, but no such tool" for name in sorted(names - set(CATALOGUE))
        ]
    assert not missing, "\n".join(missing)
    assert len(CATALOGUE) == TOOL_COUNT
