"""The document without a model: every section, filled from metadata."""

from __future__ import annotations

from typing import Any

from sstools.domain.documentation.models import DocumentSource
from sstools.domain.validation.facts import ChartFacts, DashboardFacts
from sstools.russian import human_datetime
from sstools.texts import STAGES
from sstools.texts import documentation as texts


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def metric_labels(chart: ChartFacts) -> list[str]:
    """Metric names as the chart shows them: a saved metric's name or an ad-hoc one's label."""
    params = chart.params
    raw: list[Any] = []
    for key in ("metrics", "metric", "secondary_metric", "percent_metrics"):
        value = params.get(key)
        raw.extend(value if isinstance(value, list) else [value] if value else [])
    labels = []
    for metric in raw:
        if isinstance(metric, dict):
            labels.append(str(metric.get("label") or metric.get("sqlExpression") or "?"))
        else:
            labels.append(str(metric))
    return labels


def _dataset_name(facts: DashboardFacts, chart: ChartFacts) -> str:
    dataset = facts.dataset(chart.dataset_id)
    return dataset.name if dataset else texts.DATASET_MISSING


def section(title: str, body: str) -> str:
    return f"## {title}\n\n{body.strip()}\n"


def _purpose(facts: DashboardFacts) -> str:
    charts = ", ".join(f"«{chart.name}»" for chart in facts.charts) or texts.NO_CHARTS
    datasets = ", ".join(f"«{one.name}»" for one in facts.datasets) or texts.NO_DATASETS
    published = texts.PUBLISHED if facts.published else texts.UNPUBLISHED
    if facts.certified_by:
        published += texts.CERTIFIED.format(who=facts.certified_by)
    return texts.PURPOSE_TEXT.format(
        title=facts.title, env=facts.env_id, charts=charts, datasets=datasets, published=published
    )


def _charts(facts: DashboardFacts) -> str:
    rows = [
        "| "
        + " | ".join(
            _cell(cell)
            for cell in (
                chart.name,
                chart.viz_type or "—",
                _dataset_name(facts, chart),
                ", ".join(metric_labels(chart)) or texts.NO_METRICS,
            )
        )
        + " |"
        for chart in facts.charts
    ]
    return "\n".join([texts.CHARTS_HEADER, *rows]) if rows else texts.NO_CHARTS.capitalize()


def _filters(facts: DashboardFacts) -> str:
    if not facts.filters:
        return texts.NO_FILTERS
    return "\n".join(
        texts.FILTER_LINE.format(
            name=one.name,
            type=one.type,
            columns=f": {', '.join(one.columns)}" if one.columns else "",
        )
        for one in facts.filters
    )


def _deployed(source: DocumentSource) -> str:
    rows = []
    for one in source.deployments:
        if one.present is None:
            present = texts.PRESENT_UNKNOWN
        elif one.present:
            present = texts.PRESENT_YES.format(id=one.dashboard_id)
        else:
            present = texts.PRESENT_NO
        changed = human_datetime(one.changed_on) if one.present else "—"
        stage = STAGES.get(one.stage, one.stage)
        rows.append(f"| {_cell(one.name)} ({one.env_id}) | {stage} | {present} | {changed} |")
    return "\n".join([texts.DEPLOYED_HEADER, *rows])


def _git(source: DocumentSource) -> str:
    text = source.git.status[:1].upper() + source.git.status[1:] + "."
    if source.git.last_commit:
        text += " " + texts.LAST_COMMIT.format(commit=source.git.last_commit)
    return text


def sections(source: DocumentSource) -> dict[str, str]:
    facts = source.facts
    owners = "\n".join(f"- {name}" for name in facts.owners) or texts.NO_OWNERS
    return {
        texts.PURPOSE: _purpose(facts),
        texts.CHARTS: _charts(facts),
        texts.FILTERS: _filters(facts),
        texts.OWNERS: owners,
        texts.DEPLOYED: _deployed(source),
        texts.GIT: _git(source),
    }


def template_document(source: DocumentSource) -> str:
    """``# <title>`` and the six sections, in a fixed order."""
    parts = [f"# {source.facts.title}\n"]
    parts += [section(title, body) for title, body in sections(source).items()]
    return "\n".join(parts)
