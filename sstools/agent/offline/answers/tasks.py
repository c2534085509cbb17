"""Tasks: one task record (what a task-starting tool answers, and get_task_status), the list,
and the result of each kind — validation findings, documentation, backup, deploy, restore."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sstools.agent.offline.answers.generic import lines as generic_lines
from sstools.agent.offline.answers.words import (
    NO_HINT,
    UUID,
    Hint,
    branch_name,
    count,
    items_of,
    listing,
    mapping,
    md,
    more,
    names,
    quoted,
    short_id,
    shorten_ids,
    size,
    snapshot_of,
    total_of,
    when,
)
from sstools.agent.texts import answers as texts

_SHOWN = 20
_FINDINGS_SHOWN = 15


def is_task(payload: Any) -> bool:
    return isinstance(payload, dict) and {"id", "kind", "status"} <= payload.keys()


def _kind(task: dict[str, Any]) -> str:
    return texts.TASK_KINDS.get(str(task.get("kind")), texts.TASK_KINDS["deploy"])


def _status(task: dict[str, Any]) -> str:
    return texts.TASK_STATUSES.get(str(task.get("status")), "—")


def _objects(task: dict[str, Any]) -> str:
    objects = task.get("objects") or []
    if not isinstance(objects, list) or not objects:
        return ""
    return f" {names(objects, total=total_of(task, 'objects'))}"


def _validation(result: dict[str, Any]) -> list[str]:
    counts = mapping(result.get("counts"))
    errors, warnings = int(counts.get("error") or 0), int(counts.get("warning") or 0)
    out = [
        texts.VALIDATION_ERRORS.format(errors=errors, warnings=warnings)
        if errors or warnings
        else texts.VALIDATION_CLEAN
    ]
    if counts.get("info"):
        out[0] += " " + texts.VALIDATION_NOTES.format(count=counts["info"])
    findings = [f for f in result.get("findings") or [] if isinstance(f, dict)]
    order = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: order.get(str(f.get("severity")), 3))
    for finding in findings[:_FINDINGS_SHOWN]:
        kind = texts.OBJECT_KINDS.get(str(finding.get("object_type")), "")
        fix = finding.get("fix")
        out.append(
            "- "
            + texts.FINDING.format(
                severity=texts.SEVERITIES.get(str(finding.get("severity")), texts.SEVERITY),
                object=f"{kind} {quoted(finding.get('object_name') or '—')}".strip(),
                message=md(finding.get("message") or ""),
                fix=texts.FINDING_FIX.format(fix=md(fix)) if fix else "",
            )
        )
    total = total_of(result, "findings")  # the model may have read only the most severe
    if (note := more(min(len(findings), _FINDINGS_SHOWN), total)) is not None:
        out.append(f"- {note}")
    if result.get("review"):
        out.append(texts.VALIDATION_REVIEW.format(review=md(result["review"])))
    return out


def _documentation(result: dict[str, Any]) -> list[str]:
    author = texts.DOCUMENTATION_AUTHORS.get(str(result.get("author")), md(result.get("author")))
    # Results from before commits needed an engineer have no "committed": they were all committed.
    done = texts.DOCUMENTATION_DONE if result.get("committed", True) else texts.DOCUMENTATION_STORED
    out = [done.format(author=author, path=md(result.get("git_path") or "—"))]
    if result.get("charts"):
        out.append(texts.DOCUMENTATION_CHARTS.format(names=names(result["charts"])))
    if result.get("model_error"):
        out.append(texts.DOCUMENTATION_MODEL_ERROR.format(error=md(result["model_error"])))
    return out


def kinds_counted(counts: object) -> str:
    """{"dashboards": 13, "charts": 10} → «13 дашбордов, 10 графиков»."""
    if not isinstance(counts, dict):
        return "—"
    nouns = {"dashboards": "dashboard", "charts": "chart", "datasets": "dataset"}
    nouns |= {"databases": "database"}
    made = [count(int(n), nouns[k]) for k, n in counts.items() if k in nouns and isinstance(n, int)]
    return ", ".join(made) or "—"


def _backup(result: dict[str, Any]) -> list[str]:
    out = [
        texts.BACKUP_DONE.format(
            id=f"`{md(result.get('backup_id'))}`",
            counts=kinds_counted(result.get("counts")),
            size=size(result.get("bytes")),
            files=count(int(result.get("files") or 0), "file"),
        )
    ]
    if result.get("removed"):
        out.append(texts.BACKUP_REMOVED.format(names=names(result["removed"], quote=False)))
    return out


def _listed(template: str, values: object) -> list[str]:
    return [f"- {template.format(names=names(listing(values)))}"] if values else []


def _deploy(result: dict[str, Any]) -> list[str]:
    out = _listed(texts.DEPLOY_IMPORTED, result.get("imported"))
    out += _listed(texts.DEPLOY_NOT_IMPORTED, result.get("not_imported"))
    out += _listed(texts.DEPLOY_UNCHANGED, result.get("unchanged"))
    snapshot = result.get("snapshot")
    if isinstance(snapshot, dict) and snapshot.get("branch"):
        out.append(texts.DEPLOY_SNAPSHOT)
    return out


def _restore(result: dict[str, Any]) -> list[str]:
    out = []
    if isinstance(result.get("imported"), dict):
        out.append(f"- {texts.RESTORE_IMPORTED.format(counts=kinds_counted(result['imported']))}")
    out += _listed(texts.RESTORE_SKIPPED, result.get("not_imported_charts"))
    return out


def _dashboards(template: str, values: object) -> list[str]:
    """Dashboards by title; a result from before titles were kept names them by UUID, so it
    is only counted."""
    listed = listing(values)
    if listed and all(UUID.fullmatch(str(value)) for value in listed):
        return [f"- {template.format(names=count(len(listed), 'dashboard'))}"]
    return _listed(template, listed)


def _rollback(result: dict[str, Any]) -> list[str]:
    out = _dashboards(texts.ROLLBACK_RESTORED, result.get("restored"))
    out += _dashboards(texts.ROLLBACK_NOT_RESTORED, result.get("not_restored"))
    if result.get("deleted"):  # by name
        return out + _listed(texts.ROLLBACK_DELETED, result["deleted"])
    deleted = {
        "dashboards": len(listing(result.get("deleted_dashboards"))),
        "charts": len(listing(result.get("deleted_charts"))),
    }
    if any(deleted.values()):
        counted = kinds_counted({kind: n for kind, n in deleted.items() if n})
        out.append(f"- {texts.ROLLBACK_DELETED.format(names=counted)}")
    return out


def _source(task: dict[str, Any]) -> str | None:
    """Where the task read from, when it is not where it wrote: an environment, a git branch
    (a rollback's snapshot named by its deploy's short id, the commit left out), a backup."""
    source = task.get("source")
    if not source or source == task.get("env_id"):
        return None
    text = str(source)
    if text.startswith("git:"):
        text = text.split("@", 1)[0]
        if (deploy := snapshot_of(text.removeprefix("git:"))) is not None:
            return texts.SNAPSHOT.format(task=deploy)
    return branch_name(text)


_RESULTS: dict[str, Callable[[dict[str, Any]], list[str]]] = {
    "validation": _validation,
    "documentation": _documentation,
    "backup": _backup,
    "deploy": _deploy,
    "migration": _deploy,
    "restore": _restore,
    "rollback": _rollback,
}


def task(payload: Any, hint: Hint = NO_HINT) -> str | None:
    """«Проверка дашборда «Отчёт»: выполнена.», then what it found or did, then who and when."""
    if not is_task(payload):
        return None
    live = payload.get("status") in ("queued", "running")
    just_started = live and hint.tool != "get_task_status"
    verdict = texts.TASK_STARTED if just_started else texts.TASK_VERDICT
    out = [verdict.format(kind=_kind(payload), objects=_objects(payload), status=_status(payload))]
    result = payload.get("result")
    if payload.get("error"):
        out.append(texts.TASK_ERROR.format(error=md(shorten_ids(str(payload["error"])))))
    if isinstance(result, dict) and result:
        render = _RESULTS.get(str(payload.get("kind")))
        out += render(result) if render else generic_lines(result)
    progress = payload.get("progress")
    details = [texts.TASK_ID.format(id=md(short_id(payload["id"])))]
    if live:
        if not just_started:
            out.append(texts.TASK_FOLLOW.format(id=md(short_id(payload["id"]))))
        if isinstance(progress, dict) and progress.get("name"):
            details.append(
                texts.TASK_STEP.format(
                    step=progress.get("step"),
                    total=progress.get("total"),
                    name=md(shorten_ids(str(progress["name"]))),
                )
            )
    details.append(texts.TASK_WHERE.format(env=md(payload.get("env_id") or "—")))
    if (source := _source(payload)) is not None:
        details.append(texts.TASK_SOURCE.format(source=source))
    details.append(
        texts.TASK_BY.format(
            who=md(payload.get("started_by") or "—"), when=when(payload.get("created_at"))
        )
    )
    if payload.get("finished_at"):
        details.append(texts.TASK_FINISHED.format(when=when(payload["finished_at"])))
    return "\n".join([*out, "", *(f"- {line}" for line in details)])


def _who(item: dict[str, Any]) -> str:
    """Who started it, and who approved it where the stage needed a second person."""
    who = md(str(item.get("started_by") or "—"))
    approver = item.get("approved_by")
    return texts.TASKS_APPROVED.format(who=who, approver=md(str(approver))) if approver else who


def task_list(payload: Any, hint: Hint = NO_HINT) -> str | None:
    items, total = items_of(payload)
    if not isinstance(payload, list | dict):
        return None
    if not items:
        return texts.TASKS_NONE
    out = [texts.TASKS_FOUND.format(count=total), "", texts.TASKS_HEAD, "|---|---|---|---|---|---|"]
    for item in items[:_SHOWN]:
        if not is_task(item):
            continue
        objects = item.get("objects")
        total = total_of(item, "objects")
        shown = names(objects, shown=3, total=total) if isinstance(objects, list) else "—"
        out.append(
            f"| {_kind(item)} (`{md(short_id(item['id']))}`) | {shown} "
            f"| {md(str(item.get('env_id') or '—'))} | {_who(item)} | {_status(item)} "
            f"| {when(item.get('created_at'))} |"
        )
    if (note := more(min(len(items), _SHOWN), total)) is not None:
        out += ["", note]
    return "\n".join(out)
