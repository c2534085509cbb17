"""Asking back like a person (issue 22 §3): what is missing, in words, with choices.

A question back starts with the tool's title and names what it needs in words («какой дашборд
выкатить?», «в какое окружение — staging или prod?»), offering what it can: the environments,
the last tasks of this conversation, the backups it has seen. It never prints an argument's
name. The tasks of the conversation are also what «последняя выкатка» and a task status with no
id resolve to (:func:`latest_task`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage

from sstools.agent.offline.answers.words import short_id
from sstools.agent.offline.intent import BACKUP_ID
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts import offline as texts
from sstools.agent.tools import CATALOGUE

SHOWN = 3  # choices offered: the last three tasks, backups


@dataclass(frozen=True)
class TaskSeen:
    """A task the conversation's tool results named (started here, or listed)."""

    id: str
    kind: str
    status: str
    env_id: str | None


def _payloads(content: str) -> list[dict[str, Any]]:
    try:
        payload = json.loads(content)
    except ValueError:
        return []
    items: list[Any] = []
    if isinstance(payload, dict):
        listed = payload.get("items")
        items = listed if isinstance(listed, list) else [payload]
    elif isinstance(payload, list):
        items = payload
    return [item for item in items if isinstance(item, dict)]


def tasks_seen(messages: Sequence[BaseMessage]) -> list[TaskSeen]:
    """The tasks of this conversation, the latest first: those its calls started, then those a
    task list showed (the person's own, as the API lists them)."""
    started: list[TaskSeen] = []
    listed: list[TaskSeen] = []
    for message in messages:
        if not isinstance(message, ToolMessage) or message.status == "error":
            continue
        for item in _payloads(str(message.content)):
            if not {"id", "kind", "status"} <= item.keys():
                continue
            env = item.get("env_id")
            seen = TaskSeen(
                str(item["id"]), str(item["kind"]), str(item["status"]), str(env) if env else None
            )
            (listed if message.name == "list_tasks" else started).append(seen)
    # A list is the newest first; what the conversation started is in the order it happened.
    ordered = [*reversed(started), *listed]
    unique: dict[str, TaskSeen] = {}
    for task in ordered:
        unique.setdefault(task.id, task)
    return list(unique.values())


def latest_task(
    messages: Sequence[BaseMessage], kind: str | None = None, env_id: str | None = None
) -> TaskSeen | None:
    for task in tasks_seen(messages):
        if (kind is None or task.kind == kind) and (env_id is None or task.env_id == env_id):
            return task
    return None


def backups_seen(messages: Sequence[BaseMessage]) -> list[str]:
    """The backups a list of this conversation showed, newest first."""
    found: list[str] = []
    for message in reversed(messages):
        if isinstance(message, ToolMessage) and message.name == "list_backups":
            found += [str(one) for one in BACKUP_ID.findall(str(message.content))]
    return list(dict.fromkeys(found))


def _task_choice(task: TaskSeen) -> str:
    return texts.TASK_CHOICE.format(
        kind=answer_texts.TASK_KINDS.get(task.kind, task.kind),
        id=short_id(task.id),
        status=answer_texts.TASK_STATUSES.get(task.status, task.status),
    )


def _either(items: Sequence[str]) -> str:
    return texts.OR.join(items) if len(items) <= 2 else ", ".join(items[:-1]) + texts.OR + items[-1]


def ask(
    name: str,
    missing: Sequence[str],
    messages: Sequence[BaseMessage],
    environment_ids: Sequence[str],
    *,
    here: str | None,
    env_id: str | None = None,
    deploy: bool = False,
) -> str:
    """The question back for the first of ``missing`` (argument names, never shown)."""
    tool = CATALOGUE[name].title
    verb = texts.VERBS.get(name, texts.DEFAULT_VERB)
    first = missing[0]
    if first in ("target_env_id", "env_id", "source_env_id"):
        places = [env for env in environment_ids if env != here] or list(environment_ids)
        template = texts.ASK_TARGET if first == "target_env_id" else texts.ASK_ENVIRONMENT
        return template.format(tool=tool, choices=_either(places))
    if first == "dashboard_id":
        return texts.ASK_DASHBOARD.format(tool=tool, verb=verb)
    if first == "dashboard_ids":
        return texts.ASK_DASHBOARDS.format(tool=tool, verb=verb)
    if first == "name" and name == "create_branch":
        return texts.ASK_BRANCH.format(tool=tool)
    if first == "sql":
        return texts.ASK_SQL.format(tool=tool, verb=verb)
    if first == "backup_id":
        seen = backups_seen(messages)[:SHOWN]
        choices = (
            texts.BACKUP_CHOICES.format(items=", ".join(f"«{one}»" for one in seen))
            if seen
            else texts.BACKUP_NONE
        )
        return texts.ASK_BACKUP.format(tool=tool, choices=choices)
    if first == "task_id":
        kind = "deploy" if deploy else None
        tasks = [task for task in tasks_seen(messages) if kind is None or task.kind == kind]
        none = texts.DEPLOY_NONE if deploy else texts.TASK_NONE
        choices = (
            texts.TASK_CHOICES.format(items=", ".join(map(_task_choice, tasks[:SHOWN])))
            if tasks
            else none
        )
        if deploy:
            where = texts.ASK_WHERE.format(env=env_id) if env_id else ""
            return texts.ASK_DEPLOY.format(tool=tool, verb=verb, where=where, choices=choices)
        return texts.ASK_TASK.format(tool=tool, verb=verb, choices=choices)
    if first == "table":
        return texts.ASK_TABLE.format(tool=tool)
    labels = [answer_texts.CARD_LABELS.get(one, "").lower() for one in missing]
    return texts.ASK_OTHER.format(tool=tool, labels=", ".join(one for one in labels if one))
