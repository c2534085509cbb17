"""Datasets: the overview of the dataset on the page, in words a person reads.

The model reads the JSON; this is only for the person, so the verdict (problems) comes first.
"""

from __future__ import annotations

from typing import Any

from sstools.agent import texts
from sstools.agent.answers.words import NO_HINT, Hint
from sstools.dates import human_datetime

_SHOWN = 12  # names listed per line; the rest are counted


def _names(items: list[str], *, quote: bool = False) -> str:
    if not items:
        return texts.DATASET_NONE
    shown = [f"«{item}»" if quote else item for item in items[:_SHOWN]]
    if len(items) > _SHOWN:
        shown.append(texts.PLAN_MORE.format(count=len(items) - _SHOWN))
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
    columns = [str(column.get("name")) for column in payload.get("columns") or []]
    metrics = [str(metric) for metric in payload.get("metrics") or []]
    charts = [str(chart.get("name")) for chart in payload.get("charts") or []]
    dashboards = [str(dash.get("title")) for dash in payload.get("dashboards") or []]
    owners = [str(owner.get("name")) for owner in payload.get("owners") or []]
    used_by = _names(dashboards, quote=True)
    lines += [
        f"- {texts.DATASET_COLUMNS.format(count=len(columns), names=_names(columns))}",
        f"- {texts.DATASET_METRICS.format(count=len(metrics), names=_names(metrics))}",
        f"- {texts.DATASET_CHARTS.format(count=len(charts), names=_names(charts, quote=True))}",
        f"- {texts.DATASET_DASHBOARDS.format(count=len(dashboards), names=used_by)}",
        f"- {texts.DATASET_OWNERS.format(names=_names(owners))}",
    ]
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
