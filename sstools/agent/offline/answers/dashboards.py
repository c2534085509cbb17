"""Dashboards: the search result as a table, and the health summary verdict first."""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.words import (
    NO_HINT,
    Hint,
    count,
    items_of,
    link,
    links,
    md,
    more,
    names,
    quoted,
    when,
    yes_no,
)
from sstools.agent.texts import answers as texts
from sstools.agent.texts import dashboard_data as data_texts
from sstools.agent.texts.vocabulary import LAST_VALIDATION

_SHOWN = 20


def sstools_dashboard(dashboard_id: object, env_id: str | None) -> str | None:
    if not isinstance(dashboard_id, int) or isinstance(dashboard_id, bool):
        return None
    return f"/dashboards/{dashboard_id}" + (f"?env_id={env_id}" if env_id else "")


def dashboard_links(payload: dict[str, Any], env_id: str | None) -> list[str]:
    """The end of an answer about a dashboard: a blank line and its links, when there are any."""
    opened = links(
        (texts.OPEN_SSTOOLS, sstools_dashboard(payload.get("dashboard_id"), env_id)),
        (texts.OPEN_SUPERSET, payload.get("url")),
    )
    return ["", opened] if opened else []


def _published(value: object) -> str:
    return yes_no(value) if isinstance(value, bool) else "—"


def search(payload: Any, hint: Hint = NO_HINT) -> str | None:
    items, total = items_of(payload)
    if not items and not isinstance(payload, list | dict):
        return None
    if not items:
        return texts.NOTHING_FOUND
    lines = [texts.SEARCH_FOUND.format(count=count(total, "dashboard")), "", texts.SEARCH_HEAD]
    lines.append("|---|---|---|---|")
    for item in items[:_SHOWN]:
        if not isinstance(item, dict):
            continue
        title = md(item.get("title") or "—")
        mine = link(title, sstools_dashboard(item.get("id"), hint.env_id))
        theirs = link(texts.OPEN_SUPERSET, item.get("url")) or "—"
        number = f" (#{item['id']})" if isinstance(item.get("id"), int) else ""
        lines.append(
            f"| {mine or title}{number} | {_published(item.get('published'))} "
            f"| {when(item.get('changed_on'))} | {theirs} |"
        )
    if (note := more(min(len(items), _SHOWN), total)) is not None:
        lines += ["", note]
    return "\n".join(lines)


def _validation(text: object) -> str:
    """«Последняя проверка: …, проблем нет», or «Проверка: не проверялся»."""
    if not isinstance(text, str) or not text.startswith(LAST_VALIDATION):
        return (
            texts.HEALTH_NOT_CHECKED
            if not text
            else f"{texts.LABELS['last_validation']}: {md(text)}"
        )
    return md(text[:1].upper() + text[1:])


def health(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or "status" not in payload or "title" not in payload:
        return None
    env = str(payload.get("env_id") or hint.env_id or "—")
    problems = [str(problem) for problem in payload.get("problems") or []]
    title = quoted(payload.get("title"))
    verdict = (
        texts.HEALTH_DEGRADED.format(
            title=title, env=md(env), count=count(len(problems), "problem")
        )
        if problems or payload.get("status") != "ok"
        else texts.HEALTH_OK.format(title=title, env=md(env))
    )
    lines = [verdict, *(f"- {md(problem)}" for problem in problems), ""]
    git = f"- {texts.HEALTH_GIT.format(status=md(payload.get('git_status') or '—'))}"
    commit = (
        (payload.get("git") or {}).get("last_commit")
        if isinstance(payload.get("git"), dict)
        else None
    )
    if isinstance(commit, dict):
        git += "; " + texts.HEALTH_COMMIT.format(
            when=when(commit.get("time")),
            author=md(str(commit.get("author") or "—").split(" <")[0]),
            message=md(
                str(commit.get("message") or "").splitlines()[0] if commit.get("message") else "—"
            ),
        )
    lines.append(git)
    lines.append(f"- {texts.HEALTH_CHANGED.format(when=when(payload.get('changed_on')))}")
    lines.append(f"- {_validation(payload.get('last_validation'))}")
    lines.append(f"- {texts.HEALTH_PUBLISHED.format(value=yes_no(payload.get('published')))}")
    owners = [owner.get("name") for owner in payload.get("owners") or [] if isinstance(owner, dict)]
    lines.append(f"- {texts.HEALTH_OWNERS.format(names=names(owners, quote=False))}")
    charts = [chart for chart in payload.get("charts") or [] if isinstance(chart, dict)]
    if charts or "charts" in payload:
        line = texts.HEALTH_CHARTS.format(
            count=len(charts), names=names(chart.get("name") for chart in charts)
        )
        broken = [chart.get("name") for chart in charts if chart.get("dataset_resolves") is False]
        if broken:
            line += "; " + texts.HEALTH_BROKEN.format(names=names(broken))
        lines.append(f"- {line}")
    lines += dashboard_links(payload, env)
    return "\n".join(lines)


def timeline(payload: Any, hint: Hint = NO_HINT) -> str | None:
    """A dashboard's versions, newest first: when, what (a commit, a snapshot before a deploy, a
    backup, the live state), who, where."""
    if not isinstance(payload, dict) or "points" not in payload:
        return None
    title = md(payload.get("title") or "—")
    points, total = items_of(payload, "points")
    if not points:
        return texts.TIMELINE_NONE.format(title=title)
    out = [texts.TIMELINE_FOUND.format(title=title, count=total), "", texts.TIMELINE_HEAD]
    out.append("|---|---|---|---|")
    for point in points:
        if not isinstance(point, dict):
            continue
        kind = texts.TIMELINE_KINDS.get(str(point.get("kind")), "—")
        label = md(point.get("label") or "")
        what = f"{kind}: {label}" if label else kind
        who, where = md(point.get("who") or "—"), md(point.get("env_id") or "—")
        out.append(f"| {when(point.get('when'))} | {what} | {who} | {where} |")
    if (note := more(len(points), total)) is not None:
        out += ["", note]
    return "\n".join(out)


def _filter_words(one: Any) -> str:
    """«region: Москва, Казань», «year >= 2024», «sector: кроме Быт»."""
    if not isinstance(one, dict):
        return ""
    column, op = md(one.get("column") or ""), str(one.get("op") or "")
    values = ", ".join(md(value) for value in one.get("values") or [])
    if op == "IN":
        return f"{column}: {values}"
    if op == "NOT IN":
        return f"{column}: {data_texts.EXCEPT} {values}"
    return f"{column} {md(op)} {values}"


def _chart_table(chart: dict[str, Any]) -> list[str]:
    columns = [md(name) for name in chart.get("columns") or []]
    rows = [row for row in chart.get("rows") or [] if isinstance(row, list)]
    if not columns or not rows:
        return [data_texts.EMPTY]
    out = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(md(cell) for cell in row) + " |" for row in rows]
    total = int(chart.get("row_count") or len(rows))
    if total > len(rows):
        out += ["", data_texts.MORE_ROWS.format(shown=len(rows), total=total)]
    return out


def _difference_rows(chart: dict[str, Any]) -> list[str]:
    out = []
    for one in chart.get("differences") or []:
        if not isinstance(one, dict):
            continue
        row = ", ".join(md(value) for value in one.get("row") or []) or "—"
        here, there = (
            data_texts.NO_ROW if one.get(side) is None else md(one.get(side))
            for side in ("here", "there")
        )
        out.append(f"| {row} | {md(one.get('column') or '—')} | {here} | {there} |")
    return out


def compared(payload: dict[str, Any]) -> str:
    """Two environments' numbers: the verdict first, then each differing chart's numbers."""
    here, there = md(payload.get("env_id") or "—"), md(payload.get("other_env_id") or "—")
    used = [words for words in map(_filter_words, payload.get("filters") or []) if words]
    filters = data_texts.COMPARED_FILTERS.format(filters="; ".join(used)) if used else ""
    charts = [chart for chart in payload.get("charts") or [] if isinstance(chart, dict)]
    differ = [chart for chart in charts if chart.get("differs")]
    verdict = (
        data_texts.SOME_DIFFER.format(differ=len(differ), total=len(charts))
        if differ
        else data_texts.ALL_SAME.format(count=len(charts))
    )
    out = [data_texts.COMPARED.format(here=here, there=there, filters=filters, verdict=verdict)]
    if payload.get("other_dashboard_id", 0) is None:
        return data_texts.DASHBOARD_ABSENT.format(there=there)
    for chart in differ:
        out += ["", f"**{md(chart.get('name') or '—')}**"]
        if chart.get("error"):
            out.append(data_texts.FAILED.format(error=md(chart["error"])))
            continue
        rows = _difference_rows(chart)
        if not rows:
            out.append(data_texts.CHART_MISSING.format(there=there))
            continue
        out += [data_texts.DIFF_HEAD.format(here=here, there=there), "|---|---|---|---|", *rows]
        if chart.get("more_differences"):
            out.append(data_texts.MORE_DIFFERENCES.format(count=chart["more_differences"]))
    if payload.get("dashboards_differ"):
        out += ["", data_texts.DASHBOARDS_DIFFER.format(here=here, there=there)]
    return "\n".join(out)


def data(payload: Any, hint: Hint = NO_HINT) -> str | None:
    """The filters used, then each chart: its rows as a table, the filters it could not take."""
    if not isinstance(payload, dict) or "charts" not in payload:
        return None
    if "other_env_id" in payload:
        return compared(payload)
    used = [words for words in map(_filter_words, payload.get("filters") or []) if words]
    out = [data_texts.FILTERS.format(filters="; ".join(used)) if used else data_texts.NO_FILTERS]
    charts = [chart for chart in payload.get("charts") or [] if isinstance(chart, dict)]
    if not charts:
        return "\n".join([*out, "", data_texts.NO_CHARTS])
    for chart in charts:
        out += ["", f"**{md(chart.get('name') or '—')}**"]
        if chart.get("error"):
            out.append(data_texts.FAILED.format(error=md(chart["error"])))
            continue
        if skipped := chart.get("filters_skipped"):
            out.append(data_texts.SKIPPED.format(columns=", ".join(quoted(c) for c in skipped)))
        out += _chart_table(chart)
    return "\n".join(out)
