"""Git: the repository's status, its branches, a new branch and a commit."""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.words import (
    NO_HINT,
    Hint,
    branch_name,
    count,
    items_of,
    mapping,
    md,
    more,
    names,
    quoted,
    snapshot_of,
    total_of,
    when,
)
from sstools.agent.texts import answers as texts

_SHOWN = 20
_CHANGED = ("modified", "untracked")


def _author(commit: dict[str, Any]) -> str:
    return md(str(commit.get("author") or "—").split(" <")[0])


def _subject(commit: dict[str, Any]) -> str:
    message = str(commit.get("message") or "").strip()
    return md(message.splitlines()[0] if message else "—")


def _dashboard(item: dict[str, Any], branch: str) -> str:
    status = str(item.get("status"))
    text = texts.GIT_DASHBOARD_STATUS.get(status, "—")
    if status == "clean":
        text += f" «{branch_name(branch)}»"
    files = item.get("changed_files")
    if isinstance(files, list) and files:
        text += "; " + texts.GIT_FILES.format(count=len(files))
    commit = item.get("last_commit")
    if isinstance(commit, dict):
        text += f"; {when(commit.get('time'))}, {_author(commit)}"
    return f"- {quoted(item.get('title') or '—')}: {text}"


def status(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or "branch" not in payload:
        return None
    branch = str(payload.get("branch"))
    dashboards = [d for d in payload.get("dashboards") or [] if isinstance(d, dict)]
    # The model may have read only the first dashboards; ``statuses`` counts all of them.
    statuses = mapping(payload.get("statuses")) or {
        status: sum(1 for d in dashboards if d.get("status") == status) for status in _CHANGED
    }
    changed = sum(int(statuses.get(status) or 0) for status in _CHANGED)
    files = payload.get("changed_files") or payload.get("files") or []
    dirty = changed + (len(files) if isinstance(files, list) else 0)
    verdict = (
        texts.GIT_CHANGED.format(branch=branch_name(branch), count=dirty)
        if dirty
        else texts.GIT_CLEAN.format(branch=branch_name(branch))
    )
    out = [verdict, *(_dashboard(item, branch) for item in dashboards[:_SHOWN])]
    if (note := more(min(len(dashboards), _SHOWN), total_of(payload, "dashboards"))) is not None:
        out.append(f"- {note}")
    head = payload.get("head")
    out.append(
        texts.GIT_HEAD.format(
            when=when(head.get("time")), author=_author(head), message=_subject(head)
        )
        if isinstance(head, dict)
        else texts.GIT_NO_COMMIT
    )
    return "\n".join(out)


def _branch_line(item: dict[str, Any]) -> str:
    name = branch_name(item.get("name") or "—")
    default = texts.BRANCH_DEFAULT if item.get("default") else ""
    if (deploy := snapshot_of(item.get("name"))) is not None:
        default += texts.BRANCH_SNAPSHOT.format(task=deploy)
    commit = mapping(item.get("commit"))
    if not commit:  # a long list reaches the model without each branch's commit
        return "- " + texts.BRANCH_NAME.format(name=name, default=default)
    return "- " + texts.BRANCH_LINE.format(
        name=name, default=default, when=when(commit.get("time")), author=_author(commit)
    )


def branches(payload: Any, hint: Hint = NO_HINT) -> str | None:
    items, total = items_of(payload)
    if not isinstance(payload, list | dict) or (not items and isinstance(payload, dict)):
        return None
    listed = [item for item in items if isinstance(item, dict)][:_SHOWN]
    out = [texts.BRANCHES_FOUND.format(count=total), *map(_branch_line, listed)]
    if (note := more(len(listed), total)) is not None:
        out.append(f"- {note}")
    return "\n".join(out)


def branch_created(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or "name" not in payload:
        return None
    commit = mapping(payload.get("commit"))
    return texts.BRANCH_CREATED.format(name=branch_name(payload["name"]), message=_subject(commit))


def commit(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or "created" not in payload:
        return None
    if not payload.get("created"):
        return texts.COMMIT_NOTHING
    made = mapping(payload.get("commit"))
    files = [f for f in payload.get("files") or [] if isinstance(f, dict)]
    total = len(files) or int(payload.get("files_count") or 0)
    out = [
        texts.COMMIT_CREATED.format(
            id=md(str(made.get("id") or "")[:7]),
            branch=branch_name(payload.get("branch") or "—"),
            files=count(total, "file"),
        )
    ]
    if payload.get("dashboards"):
        out.append(f"- {texts.COMMIT_DASHBOARDS.format(names=names(payload['dashboards']))}")
    for item in files[:20]:
        change = texts.FILE_CHANGES.get(str(item.get("change")), texts.FILE_CHANGED)
        out.append(f"- `{md(item.get('path'))}`: {change}")
    if payload.get("push_error"):
        out.append(texts.COMMIT_PUSH_FAILED.format(error=md(payload["push_error"])))
    return "\n".join(out)
