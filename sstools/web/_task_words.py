"""A task record as people read it: its kind, objects, places, times, progress and result in
words (``strings.UI``), never a raw id, enum or path; a task is named by its first 8 digits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sstools.environments import Environment, EnvironmentRegistry
from sstools.ids import is_commit_id
from sstools.storage.models import TaskRecord
from sstools.storage.task_history import UNDOABLE_KINDS, WRITE_KINDS, undone_writes
from sstools.web._kit import short_ids
from sstools.web.strings import UI

KINDS = (
    "deploy",
    "migration",
    "rollback",
    "commit",
    "backup",
    "restore",
    "validation",
    "documentation",
)
STATUSES = ("queued", "running", "succeeded", "failed", "cancelled")
FINISHED = frozenset({"succeeded", "failed", "cancelled"})
# The kinds that write dashboards: a dashboard's deploy history.
WRITES_DASHBOARDS = WRITE_KINDS
UNDOABLE = frozenset(UNDOABLE_KINDS)
DASHBOARD_KEY = "dashboard:"
_SNAPSHOT_SOURCE = "git:snapshots/"
_COUNTED = ("dashboards", "charts", "datasets", "databases")


@dataclass(frozen=True)
class Place:
    """An environment a task reads or writes, as the page names it (None: not an environment)."""

    words: str
    env: Environment | None = None


@dataclass(frozen=True)
class ResultLine:
    label: str
    values: list[str]
    tone: str = ""  # "bad" for what did not make it
    quoted: bool = True  # names («Energy KPIs»), not counts or sentences


@dataclass(frozen=True)
class Finding:
    severity: str  # error, warning, info: the badge's class; the words are in ``severity_words``
    severity_words: str
    object_name: str
    message: str
    fix: str


@dataclass
class TaskView:
    id: str
    short: str
    kind: str
    kind_words: str
    title: str
    objects: list[str]
    target: Place
    source: Place | None
    started_by: str
    who: str  # who started it and, where a second person approved it, who did
    status: str
    status_words: str
    progress: str | None
    step: int
    total: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    error: str | None
    result: list[ResultLine] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    summary: str | None = None
    dashboard_uuids: list[str] = field(default_factory=list)
    has_snapshot: bool = False
    undone_by: str | None = None  # the rollback that undid it

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def undoable(self) -> bool:
        """A finished deploy or migration that took a snapshot and no rollback undid yet."""
        return self.kind in UNDOABLE and self.finished and self.has_snapshot and not self.undone_by

    @property
    def name(self) -> str:
        """«Выкатка «Energy KPIs» · 3f9c2b7e»: what a link to it says."""
        shown = ", ".join(f"«{one}»" for one in self.objects[:3])
        more = UI["task_more"].format(count=len(self.objects) - 3) if len(self.objects) > 3 else ""
        return " ".join(part for part in (self.title, shown, more, f"· {self.short}") if part)


def progress_text(progress: dict[str, Any] | None) -> str | None:
    if not progress:
        return None
    return UI["task_progress"].format(
        step=progress.get("step", 0), total=progress.get("total", 0), name=progress.get("name", "")
    )


def place_of(env_id: str, environments: EnvironmentRegistry) -> Place:
    env = environments.get(env_id)
    return Place(env.name, env) if env else Place(short_ids(env_id))


def source_place(source: str | None, environments: EnvironmentRegistry) -> Place | None:
    """Where a task read from: an environment, a git branch, or a deploy's snapshot."""
    if not source:
        return None
    if source.startswith(_SNAPSHOT_SOURCE):
        deploy = source.removeprefix(_SNAPSHOT_SOURCE).split("@", 1)[0]
        return Place(UI["source_snapshot"].format(task=deploy[:8]))
    if source.startswith("git:"):
        ref = source.removeprefix("git:")
        if is_commit_id(ref):
            return Place(UI["source_commit"].format(commit=ref[:8]))
        return Place(UI["source_git"].format(ref=short_ids(ref)))
    return place_of(source, environments)


def _titles(value: Any) -> list[str]:
    return [short_ids(one) for one in value] if isinstance(value, list) else []


def _line(label: str, value: Any, tone: str = "") -> list[ResultLine]:
    titles = _titles(value)
    return [ResultLine(UI[label], titles, tone)] if titles else []


def _deploy_lines(result: dict[str, Any]) -> list[ResultLine]:
    lines = [
        *_line("result_imported", result.get("imported")),
        *_line("result_not_imported", result.get("not_imported"), "bad"),
        *_line("result_unchanged", result.get("unchanged")),
    ]
    snapshot = result.get("snapshot")
    if isinstance(snapshot, dict) and snapshot.get("commit"):
        words = UI["result_snapshot_taken"].format(files=snapshot.get("files", 0))
        lines.append(ResultLine(UI["result_snapshot"], [words], quoted=False))
    return lines


def _rollback_lines(result: dict[str, Any]) -> list[ResultLine]:
    lines = [
        *_line("result_restored", result.get("restored")),
        *_line("result_not_restored", result.get("not_restored"), "bad"),
        *_line("result_unchanged", result.get("unchanged")),
        *_line("result_deleted", result.get("deleted")),
    ]
    counted = len(result.get("deleted_dashboards") or []) + len(result.get("deleted_charts") or [])
    if counted and not result.get("deleted"):  # an older result named no deleted objects
        count = UI["result_count"].format(count=counted)
        lines.append(ResultLine(UI["result_deleted"], [count], quoted=False))
    return lines


def _counts_lines(result: dict[str, Any], key: str, label: str) -> list[ResultLine]:
    counts = result.get(key)
    if not isinstance(counts, dict):
        return []
    values = [
        UI[f"count_{kind}"].format(count=counts[kind])
        for kind in _COUNTED
        if isinstance(counts.get(kind), int)
    ]
    return [ResultLine(UI[label], values, quoted=False)] if values else []


def _backup_lines(result: dict[str, Any]) -> list[ResultLine]:
    lines = _counts_lines(result, "counts", "result_archived")
    size = result.get("bytes")
    if isinstance(size, int):
        kb = max(1, round(size / 1024))
        lines.append(ResultLine(UI["result_size"], [UI["result_kb"].format(kb=kb)], quoted=False))
    return lines


def result_lines(kind: str, result: dict[str, Any] | None) -> list[ResultLine]:
    if not result:
        return []
    if kind in UNDOABLE:
        return _deploy_lines(result)
    if kind == "rollback":
        return _rollback_lines(result)
    if kind == "backup":
        return _backup_lines(result)
    if kind == "restore":
        return _counts_lines(result, "imported", "result_imported")
    return []


def findings_of(result: dict[str, Any] | None) -> list[Finding]:
    found = []
    for raw in (result or {}).get("findings") or []:
        if not isinstance(raw, dict):
            continue
        severity = str(raw.get("severity", "info"))
        found.append(
            Finding(
                severity=severity if severity in ("error", "warning", "info") else "info",
                severity_words=UI.get(f"severity_{severity}", UI["severity_info"]),
                object_name=short_ids(raw.get("object_name", "")),
                message=short_ids(raw.get("message", "")),
                fix=short_ids(raw.get("fix", "")),
            )
        )
    return found


async def task_views(
    session: AsyncSession, found: Sequence[TaskRecord], environments: EnvironmentRegistry
) -> list[TaskView]:
    """The records as pages show them, each deploy a rollback undid knowing by which."""
    undone = await undone_writes(session, found)
    return [task_view(record, environments, undone.get(record.id)) for record in found]


def task_view(
    record: TaskRecord, environments: EnvironmentRegistry, undone_by: str | None = None
) -> TaskView:
    kind, status = record.kind, record.status
    result = record.result if isinstance(record.result, dict) else None
    keys = record.object_keys or []
    snapshot = (result or {}).get("snapshot")
    summary = (result or {}).get("summary") if kind == "validation" else None
    progress = record.progress if status not in FINISHED else None
    return TaskView(
        id=record.id,
        short=record.id[:8],
        kind=kind,
        kind_words=UI.get(f"task_kind_{kind}", UI["task"]),
        title=UI.get(f"task_title_{kind}", UI["task"]),
        objects=[short_ids(one) for one in record.objects or []],
        target=place_of(record.env_id, environments),
        source=source_place(record.source, environments),
        started_by=record.started_by,
        who=(
            UI["task_who_approved"].format(who=record.started_by, second=record.approved_by)
            if record.approved_by
            else record.started_by
        ),
        status=status,
        status_words=UI.get(f"task_status_{status}", status),
        progress=progress_text(progress),
        step=int((progress or {}).get("step", 0)),
        total=int((progress or {}).get("total", 0)),
        created_at=record.created_at,
        started_at=record.started_at,
        finished_at=record.finished_at,
        error=short_ids(record.error) if record.error else None,
        result=result_lines(kind, result),
        findings=findings_of(result) if kind == "validation" else [],
        summary=short_ids(summary) if isinstance(summary, str) else None,
        dashboard_uuids=[
            key.removeprefix(DASHBOARD_KEY) for key in keys if key.startswith(DASHBOARD_KEY)
        ],
        has_snapshot=isinstance(snapshot, dict) and bool(snapshot.get("commit")),
        undone_by=undone_by,
    )
