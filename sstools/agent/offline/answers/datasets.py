"""Datasets: the overview of the dataset on the page, in words a person reads.

The model reads the JSON; this is only for the person, so the verdict (problems) comes first.
"""

from __future__ import annotations

from typing import Any

from sstools.agent import texts
from sstools.agent.offline.answers.words import NO_HINT, Hint, total_of
from sstools.russian import human_datetime

_SHOWN = 12  # names listed per line; the rest are counted


def _names(items: list[str], *, total: int = 0, quote: bool = False) -> str:
    """At most ``_SHOWN`` names; the rest of ``total`` (items may be its first part) counted."""
    if not items:
        return texts.DATASET_NONE
    shown = [f"«{item}»" if quote else item for item in items[:_SHOWN]]
    if (rest := max(total, len(items)) - len(shown)) > 0:
        shown.append(texts.PLAN_MORE.format(count=rest))
    return ", ".join(shown)


def _problem(problem: dict[str, Any]) -> str:
    template = texts.DATASET_PROBLEM.get(str(problem.get("kind")), str(problem.get("kind")))
    return template.format(
        chart=problem.get("chart_name") or problem.get("chart_id"),
        missing=", ".join(problem.get("missing") or []),
    )


def _review(review: dict[str, Any]) -> str:
    status = texts.DATASET_REVIEW.get(str(review.get("status")), str(review.get("status")))
    if review.get("reviewed_by"):
        when = human_datetime(review.get("updated_at"))
        status = texts.DATASET_REVIEW_BY.format(status=status, who=review["reviewed_by"], when=when)
    return texts.DATASET_REVIEW_LINE.format(status=status)


def is_overview(payload: Any) -> bool:
    return isinstance(payload, dict) and {"problems", "review", "columns"} <= payload.keys()


def render_overview(payload: dict[str, Any]) -> str:
    """«Найдено проблем: 2.», the problems, then the dataset's source, review, mappings, users."""
    kind = texts.DATASET_KIND.get("virtual" if payload.get("sql") else "physical", "")
    schema, name = payload.get("schema"), payload.get("name") or ""
    source = (
        texts.DATASET_SOURCE_SQL
        if payload.get("sql")
        else texts.DATASET_SOURCE_TABLE.format(table=f"{schema}.{name}" if schema else name)
    )
    problems = payload.get("problems") or []
    lines = [
        texts.DATASET_PROBLEMS.format(count=len(problems))
        if problems
        else texts.DATASET_NO_PROBLEMS,
        *(f"- {_problem(problem)}" for problem in problems),
        "",
        texts.DATASET_HEADLINE.format(
            name=name, kind=kind, database=payload.get("database_name") or "?", source=source
        ),
        "",
        f"- {_review(payload.get('review') or {})}",
    ]
    # The model may have read only the first of each list: counts come from the totals.
    for template, key, field, quote in (
        (texts.DATASET_COLUMNS, "columns", "name", False),
        (texts.DATASET_METRICS, "metrics", None, False),
        (texts.DATASET_CHARTS, "charts", "name", True),
        (texts.DATASET_DASHBOARDS, "dashboards", "title", True),
    ):
        items = [str(item.get(field) if field else item) for item in payload.get(key) or []]
        total = total_of(payload, key)
        names = _names(items, total=total, quote=quote)
        lines.append(f"- {template.format(count=total, names=names)}")
    owners = [str(owner.get("name")) for owner in payload.get("owners") or []]
    lines.append(f"- {texts.DATASET_OWNERS.format(names=_names(owners))}")
    if payload.get("sstools_url") and payload.get("superset_url"):
        lines += [
            "",
            texts.DATASET_LINKS.format(
                sstools=payload["sstools_url"], superset=payload["superset_url"]
            ),
        ]
    return "\n".join(lines)


def overview(payload: Any, hint: Hint = NO_HINT) -> str | None:
    return render_overview(payload) if is_overview(payload) else None
