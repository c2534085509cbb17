"""What of a tool's answer enters the model: the fields its job needs, ids and totals kept.

The domain API answers in full (other clients read it); each tool declares a ``shape`` that
keeps what a model needs to answer and to act next — ids, names, states, counts — and says how
to get the rest (``detail: true`` or the next page). Shapes keep the keys the offline answers
read (:mod:`sstools.agent.offline.answers`), since they render the same content the model reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sstools.agent.texts import tools as texts

# A list longer than this enters the model as its head, its total count and a note.
SHOWN = 20

Item = dict[str, Any]


def pick(item: Any, *keys: str) -> Item:
    """The item's ``keys`` that it has and that say something (None left out)."""
    if not isinstance(item, dict):
        return {}
    return {key: item[key] for key in keys if item.get(key) is not None}


def listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def head(
    out: Item, key: str, items: Iterable[Any], *, shown: int = SHOWN, how: str = texts.MORE_DETAIL
) -> Item:
    """``out[key]`` = the first ``shown`` items; when cut, ``{key}_total_count`` and a note."""
    everything = list(items)
    out[key] = everything[:shown]
    if len(everything) > shown:
        out[f"{key}_total_count"] = len(everything)
        note = texts.LIST_CUT.format(key=key, shown=shown, total=len(everything), how=how)
        out["note"] = f"{out['note']}; {note}" if "note" in out else note
    return out


def first_line(text: Any, width: int = 120) -> str | None:
    """A commit message's subject, at most ``width`` characters."""
    if not isinstance(text, str) or not text.strip():
        return None
    line = text.strip().splitlines()[0]
    return line if len(line) <= width else line[: width - 1] + "…"


def commit(value: Any) -> Item | None:
    """A git commit as a model needs it: a short id, when, who, and its subject."""
    if not isinstance(value, dict):
        return None
    out = pick(value, "time")
    if isinstance(value.get("id"), str):
        out["id"] = value["id"][:12]
    if isinstance(value.get("author"), str):
        out["author"] = value["author"].split(" <")[0]  # the name; the e-mail adds nothing
    if (subject := first_line(value.get("message"))) is not None:
        out["message"] = subject
    return out


# -- tasks: what every task-starting tool answers, and get_task_status ---------------------------

_SEVERITY = {"error": 0, "warning": 1, "info": 2}
_MARKDOWN_SHOWN = 600
_OBJECTS_SHOWN = 3  # per task in a list; get_task_status names them all
_FINDINGS_SHOWN = 12  # the most severe; each carries its fix, so a dozen is a page already


def _findings(result: Item) -> Item:
    out = pick(result, "counts", "review", "summary")
    findings = [f for f in listed(result.get("findings")) if isinstance(f, dict)]
    findings.sort(key=lambda f: _SEVERITY.get(str(f.get("severity")), 3))  # errors first
    keys = ("severity", "kind", "object_type", "object_id", "object_name", "message", "fix")
    return head(out, "findings", (pick(f, *keys) for f in findings), shown=_FINDINGS_SHOWN)


def _documentation(result: Item) -> Item:
    out = pick(result, "author", "git_path", "committed", "charts", "model_error")
    if isinstance(result.get("git_commit"), str):
        out["git_commit"] = result["git_commit"][:12]
    markdown = result.get("markdown")
    if isinstance(markdown, str):
        out["markdown"] = markdown[:_MARKDOWN_SHOWN]
        if len(markdown) > _MARKDOWN_SHOWN:
            out["note"] = texts.MARKDOWN_CUT.format(
                shown=_MARKDOWN_SHOWN, total=len(markdown), how=texts.MORE_DETAIL
            )
    return out


def _backup(result: Item) -> Item:
    return pick(result, "backup_id", "counts", "files", "bytes", "removed")


_RESULTS: dict[str, Callable[[Item], Item]] = {
    "validation": _findings,
    "documentation": _documentation,
    "backup": _backup,
}


def task_summary(task: Any) -> Item:
    """A task in a list: what it is, on what, where, and how it stands."""
    out = pick(task, "id", "kind", "env_id", "status", "started_by", "approved_by")
    out |= pick(task, "created_at", "error")
    objects = listed(task.get("objects"))
    out["objects"] = objects[:_OBJECTS_SHOWN]
    if len(objects) > _OBJECTS_SHOWN:
        out["objects_total_count"] = len(objects)
    return out


def task_record(payload: Any, args: Any = None) -> Any:
    """One task (a 202 answer or get_task_status): its state, and its result by kind."""
    if not isinstance(payload, dict) or not {"id", "kind", "status"} <= payload.keys():
        return payload
    out = pick(payload, "id", "kind", "objects", "env_id", "status", "started_by", "error")
    out |= pick(payload, "created_at", "finished_at")
    if payload.get("source") != payload.get("env_id"):
        out |= pick(payload, "source")
    if payload.get("status") in ("queued", "running"):
        out |= pick(payload, "progress")
    result = payload.get("result")
    if isinstance(result, dict) and result:
        shape = _RESULTS.get(str(payload.get("kind")))
        out["result"] = shape(result) if shape else result
    return out
