"""Deploy plans (preview_migration; a deploy or restore preview): what changes where."""

from __future__ import annotations

from typing import Any

from sstools.agent.card.impact import impact_text
from sstools.agent.card.plan import PlanView
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
)
from sstools.agent.texts import IMPACT_UNKNOWN
from sstools.agent.texts import answers as texts
from sstools.ids import is_commit_id

_SHOWN = 20


def is_plan(payload: Any) -> bool:
    return isinstance(payload, dict) and "target_env_id" in payload and "objects" in payload


def _source(payload: dict[str, Any]) -> str:
    """«из «ss-dev»», «из ветки git «main»», «из копии `ss-dev.…`»."""
    source = payload.get("source")
    if payload.get("backup_id"):
        return texts.PLAN_BACKUP_SOURCE.format(id=md(payload["backup_id"]))
    if isinstance(source, dict) and source.get("git_ref"):
        if (deploy := snapshot_of(source["git_ref"])) is not None:  # a rollback's
            return texts.PLAN_SNAPSHOT_SOURCE.format(task=deploy)
        if is_commit_id(str(source["git_ref"])):
            return texts.PLAN_COMMIT_SOURCE.format(commit=str(source["git_ref"])[:8])
        return texts.PLAN_GIT_SOURCE.format(ref=branch_name(source["git_ref"]))
    env = mapping(source).get("env_id") or payload.get("source_env_id") or "—"
    return f"«{md(env)}»"


def _changes(payload: dict[str, Any]) -> int | None:
    changed = payload.get("dashboards_changed")
    if isinstance(changed, list):
        return len(changed)
    if isinstance(changed, int) and not isinstance(changed, bool):
        return changed
    dashboards, _ = items_of(payload, "dashboards")
    if dashboards:
        return sum(1 for d in dashboards if isinstance(d, dict) and d.get("action") != "unchanged")
    return None


def _unchanged(payload: dict[str, Any], objects: list[Any], total: int) -> int | None:
    """How many objects stay as they are: the shape's ``unchanged_count``, else counted when
    the whole list is here (None when it was shortened and did not say)."""
    counted = payload.get("unchanged_count")
    if isinstance(counted, int) and not isinstance(counted, bool):
        return counted
    if len(objects) < total:
        return None
    return sum(1 for o in objects if not isinstance(o, dict) or o.get("action") == "unchanged")


def object_lines(payload: dict[str, Any]) -> list[str]:
    """One line per object the plan creates or changes; unchanged ones are only counted."""
    objects, total = items_of(payload, "objects")
    changing = [o for o in objects if isinstance(o, dict) and o.get("action") != "unchanged"]
    out = []
    for change in changing[:_SHOWN]:
        fields = [str(field) for field in change.get("fields") or []][:5]
        out.append(
            "- "
            + texts.PLAN_LINE.format(
                kind=texts.PLAN_KINDS.get(str(change.get("kind")), texts.PLAN_OBJECT),
                name=quoted(change.get("name") or "—"),
                action=texts.PLAN_ACTIONS.get(
                    str(change.get("action")), texts.PLAN_ACTIONS["update"]
                ),
                fields=f" ({', '.join(md(field) for field in fields)})" if fields else "",
            )
        )
    unchanged = _unchanged(payload, objects, total)
    changes = len(changing) if unchanged is None else total - unchanged
    if (note := more(min(len(changing), _SHOWN), changes)) is not None:
        out.append(f"- {note}")
    if unchanged is None:  # shortened: the unchanged ones cannot be counted from here
        out.append(f"- {texts.PLAN_OBJECTS.format(count=count(total, 'object'))}")
    elif unchanged > 0:
        out.append(
            f"- {texts.PLAN_ACTIONS['unchanged'].capitalize()}: {count(unchanged, 'object')}"
        )
    return out


def plan(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not is_plan(payload):
        return None
    target, source = md(payload.get("target_env_id")), _source(payload)
    changes = _changes(payload)
    if changes == 0:
        out = [texts.PLAN_NOTHING.format(target=target, source=source)]
    else:
        known = {**payload, "dashboards_changed": changes}
        verdict = impact_text(PlanView.of(known)) if changes is not None else IMPACT_UNKNOWN
        verdict = verdict[:1].upper() + verdict[1:]
        out = [texts.PLAN_VERDICT.format(changes=verdict, target=target, source=source)]
    if changes != 0 and isinstance(payload.get("summary"), str) and payload["summary"]:
        out.append(f"- {texts.RESTORE_SUMMARY.format(summary=md(payload['summary']))}")
    out += object_lines(payload)
    charts = [c for c in payload.get("unresolved_charts") or [] if isinstance(c, dict)]
    removed = [c.get("name") for c in charts if c.get("removed_from_target")]
    unresolved = [c.get("name") for c in charts if not c.get("removed_from_target")]
    if removed:
        out.append(f"- {texts.PLAN_CHARTS_REMOVED.format(names=names(removed))}")
    if unresolved:
        out.append(f"- {texts.PLAN_UNRESOLVED.format(names=names(unresolved))}")
    for database in payload.get("databases") or []:
        if isinstance(database, dict) and database.get("target_name"):
            out.append(
                "- "
                + texts.PLAN_DATABASE.format(
                    source=quoted(database.get("source_name") or "—"),
                    target=quoted(database["target_name"]),
                    by=texts.PLAN_MATCHED_BY.get(
                        str(database.get("matched_by")), texts.PLAN_MATCHED_BY["name"]
                    ),
                )
            )
    if payload.get("applicable") is False:
        out.append(texts.PLAN_NOT_APPLICABLE)
    if isinstance(payload.get("digest"), str):
        out.append(texts.PLAN_DIGEST.format(digest=md(payload["digest"][:12])))
    return "\n".join(out)
