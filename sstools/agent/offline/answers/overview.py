"""«Расскажи про этот дашборд»: what a dashboard shows and where it lives (issue 22 §4).

Composed from the dashboard page's offered read, the health summary asked in full
(``detail: true``): its charts, the datasets they read, its owners, its environment, whether it
is published, when it changed and where it is in git. The verdict and problems are the health
answer's (:func:`sstools.agent.offline.answers.dashboards.health`), not this one's.
"""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.dashboards import dashboard_links
from sstools.agent.offline.answers.words import NO_HINT, Hint, count, md, names, quoted, when
from sstools.agent.texts import offline as texts


def overview(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or "title" not in payload or "charts" not in payload:
        return None
    env = str(payload.get("env_id") or hint.env_id or "—")
    charts = [chart for chart in payload.get("charts") or [] if isinstance(chart, dict)]
    lines = [f"**{texts.OVERVIEW_TITLE.format(title=quoted(payload.get('title')))}**", ""]
    if charts:
        shown = names(chart.get("name") for chart in charts)
        lines.append(f"- {texts.OVERVIEW_CHARTS.format(count=len(charts), names=shown)}")
    else:
        lines.append(f"- {texts.OVERVIEW_NO_CHARTS}")
    datasets = {  # by id; a name where the health answer gives one
        chart["dataset_id"]: chart.get("dataset_name")
        for chart in charts
        if isinstance(chart.get("dataset_id"), int)
    }
    if datasets:
        said = ", ".join(
            quoted(name) if name else texts.OVERVIEW_DATASET.format(id=one)
            for one, name in sorted(datasets.items())
        )
        counted = count(len(datasets), "dataset")
        lines.append(f"- {texts.OVERVIEW_DATASETS.format(count=counted, ids=said)}")
    owners = [o.get("name") for o in payload.get("owners") or [] if isinstance(o, dict)]
    lines.append(f"- {texts.OVERVIEW_OWNERS.format(names=names(owners, quote=False))}")
    published = texts.OVERVIEW_PUBLISHED if payload.get("published") else texts.OVERVIEW_DRAFT
    where = texts.OVERVIEW_WHERE.format(
        env=md(env), published=published, when=when(payload.get("changed_on"))
    )
    lines.append(f"- {where}")
    if payload.get("git_status"):
        lines.append(f"- {texts.OVERVIEW_GIT.format(status=md(payload['git_status']))}")
    lines += dashboard_links(payload, env)
    lines += ["", texts.OVERVIEW_STATUS_HINT]
    return "\n".join(lines)
