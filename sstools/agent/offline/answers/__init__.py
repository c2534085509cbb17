"""Answers people read: each tool's result in Russian, for the offline planner (no model).

The model reads the tool's JSON; only what a person reads in the offline mode is rendered here.
:func:`render` picks the tool's renderers, falls back to a careful generic one, and makes sure no
tool id, UUID, raw ISO timestamp or ``True``/``False`` reaches the person whatever the shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from sstools.agent.offline.answers import (
    backups,
    dashboards,
    datasets,
    deploys,
    drift,
    environments,
    generic,
    git,
    offered,
    permissions,
    sql,
    tasks,
)
from sstools.agent.offline.answers.words import (
    NO_HINT,
    Hint,
    humanise_dates,
    shorten_ids,
    yes_no,
)
from sstools.agent.tools import CATALOGUE

Renderer = Callable[[Any, Hint], str | None]

# Tried in order; the first that recognises the shape answers. Any task-starting tool answers
# 202 with its task record, and an error answer of any tool is {"error": …}: both come first.
_COMMON: tuple[Renderer, ...] = (tasks.task,)
RENDERERS: dict[str, tuple[Renderer, ...]] = {
    "search_dashboards": (dashboards.search,),
    "get_health_summary": (dashboards.health,),
    "run_llm_validation": (),
    "run_llm_documentation": (),
    "superset_explore_database": (datasets.overview, sql.explore),
    "superset_format_sql": (sql.format_sql,),
    "superset_audit_permissions": (permissions.audit,),
    "superset_execute_sql": (sql.execute,),
    "superset_create_dataset": (sql.dataset_created,),
    "deploy_dashboard": (deploys.plan,),
    "execute_migration": (deploys.plan,),
    "preview_migration": (deploys.plan,),
    "rollback_deploy": (deploys.plan,),  # a rollback's plan reads as a deploy's
    "list_environments": (environments.environments,),
    "get_task_status": (),
    "list_tasks": (tasks.task_list,),
    "run_backup": (),
    "list_backups": (backups.backups,),
    "restore_backup": (deploys.plan,),
    "create_branch": (git.branch_created,),
    "commit_changes": (git.commit,),
    "get_git_status": (git.status,),
    "list_branches": (git.branches,),
    "get_drift": (drift.drift,),
    "get_dashboard_timeline": (dashboards.timeline,),
    "get_dashboard_data": (dashboards.data,),
    "show_capabilities": (offered.capabilities,),
}

_TOOL_IDS = re.compile(
    r"«?\b(" + "|".join(map(re.escape, sorted(CATALOGUE, key=len)[::-1])) + r")\b»?"
)
_BOOLEANS = re.compile(r"\b(True|False)\b")


def _paragraphs(text: str) -> str:
    """A blank line between a list and the sentence after it: markdown would glue them."""
    out: list[str] = []
    for line in text.split("\n"):
        if out and out[-1].startswith("- ") and line and not line.startswith(("- ", "  ")):
            out.append("")
        out.append(line)
    return "\n".join(out)


def _scrub(text: str) -> str:
    """The last guard: tool ids become their titles, ISO timestamps dates, booleans words, a
    UUID or a task's 32 hex digits their first 8 characters."""
    text = _TOOL_IDS.sub(lambda match: f"«{CATALOGUE[match.group(1)].title}»", text)
    text = shorten_ids(text)
    text = _BOOLEANS.sub(lambda match: yes_no(match.group(1) == "True"), text)
    return _paragraphs(humanise_dates(text))


def render(tool: str | None, payload: Any, hint: Hint = NO_HINT) -> str:
    """The tool's result as a person reads it: verdict first, then a short list or table."""
    if isinstance(payload, dict) and "error" in payload and len(payload) <= 2:
        return _scrub(generic.render({"error": payload["error"]}))
    hint = replace(hint, tool=tool)
    for renderer in (*_COMMON, *RENDERERS.get(tool or "", ())):
        try:
            answer = renderer(payload, hint)
        except (KeyError, TypeError, ValueError, AttributeError):  # a shape it did not expect
            answer = None
        if answer:
            return _scrub(answer)
    return _scrub(generic.render(payload))


def render_content(
    tool: str | None, content: str, args: Mapping[str, Any] | None = None, env_id: str | None = None
) -> str:
    """A ToolMessage's content (JSON, or a sentence) rendered for a person."""
    try:
        payload = json.loads(content)
    except ValueError:
        return _scrub(content)
    return render(tool, payload, Hint(env_id=env_id, args=dict(args or {})))


__all__ = ["RENDERERS", "Hint", "render", "render_content"]
