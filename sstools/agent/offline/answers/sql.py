"""SQL and databases: a query's rows as a table, formatted SQL, the database explorer's levels,
and a created dataset."""

from __future__ import annotations

from typing import Any

from sstools.agent.offline.answers.generic import scalar
from sstools.agent.offline.answers.words import (
    NO_HINT,
    Hint,
    items_of,
    links,
    md,
    more,
    names,
)
from sstools.agent.texts import answers as texts
from sstools.russian import plural_form

_ROWS_SHOWN = 20
_COLUMNS_SHOWN = 8
_NAMES_SHOWN = 40  # explored columns, tables or schemas listed; the rest counted


def _cell(value: Any) -> str:
    return (scalar(value) or "—").replace("\n", " ")[:80]


def execute(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or "rows" not in payload:
        return None
    rows, total = items_of(payload, "rows")
    total = int(payload.get("row_count") or total)
    ran = _ran(hint)
    if not total:
        return texts.SQL_NO_ROWS + ran
    limited = texts.SQL_LIMITED if payload.get("limited") else ""
    out = [
        texts.SQL_ROWS.format(
            count=total, rows=plural_form(total, *texts.ROWS_RETURNED), limited=limited
        )
    ]
    columns = [str(c) for c in payload.get("columns") or []] or (
        list(rows[0]) if rows and isinstance(rows[0], dict) else []
    )
    columns = columns[:_COLUMNS_SHOWN]
    if columns:
        out += ["", "| " + " | ".join(md(c) for c in columns) + " |"]
        out.append("|" + "---|" * len(columns))
        for row in rows[:_ROWS_SHOWN]:
            if isinstance(row, dict):
                out.append("| " + " | ".join(_cell(row.get(c)) for c in columns) + " |")
            elif isinstance(row, list):
                out.append("| " + " | ".join(_cell(v) for v in row[: len(columns)]) + " |")
    if (note := more(min(len(rows), _ROWS_SHOWN), total)) is not None:
        out += ["", note]
    return "\n".join(out) + ran


def _ran(hint: Hint) -> str:
    """The query that ran, shown after its answer: the person sees what the numbers are of
    (the planner may have written it from their words)."""
    sql = hint.args.get("sql")
    if not isinstance(sql, str) or not sql.strip():
        return ""
    return f"\n\n{texts.SQL_RAN}\n\n```sql\n{sql.strip().replace('```', '')}\n```"


def format_sql(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or not isinstance(payload.get("sql"), str):
        return None
    return f"{texts.SQL_FORMATTED}\n\n```sql\n{payload['sql'].replace('```', '')}\n```"


def _databases(items: list[Any], total: int) -> str:
    out = [texts.DATABASES_FOUND.format(count=total)]
    for item in items[:20]:
        if isinstance(item, dict):
            out.append(
                "- "
                + texts.DATABASE_LINE.format(
                    name=f"«{md(item.get('name') or '—')}»",
                    id=item.get("id"),
                    backend=md(item.get("backend") or "—"),
                    sqllab=texts.DATABASE_SQLLAB if item.get("expose_in_sqllab") else "",
                )
            )
    return "\n".join(out)


def explore(payload: Any, hint: Hint = NO_HINT) -> str | None:
    """The level the arguments asked for: databases, schemas, tables or columns."""
    items, total = items_of(payload)
    if not isinstance(payload, list | dict):
        return None
    args = hint.args
    if not items:
        return texts.NOTHING_FOUND
    if all(isinstance(item, dict) and "type" in item for item in items):
        out = [texts.COLUMNS_FOUND.format(count=total), "", texts.COLUMNS_HEAD, "|---|---|"]
        listed = items[:_NAMES_SHOWN]
        out += [f"| {md(c.get('name'))} | {md(c.get('type') or '—')} |" for c in listed]
        if (note := more(len(listed), total)) is not None:
            out += ["", note]
        return "\n".join(out)
    if all(isinstance(item, dict) for item in items):
        return _databases(items, total)
    template = texts.TABLES_FOUND if args.get("schema_name") else texts.SCHEMAS_FOUND
    listed_names = names(items, quote=False, shown=_NAMES_SHOWN, total=total)
    return template.format(count=total, names=listed_names)


def dataset_created(payload: Any, hint: Hint = NO_HINT) -> str | None:
    if not isinstance(payload, dict) or not {"id", "name", "kind"} <= payload.keys():
        return None
    out = [
        texts.DATASET_CREATED.format(
            name=f"«{md(payload['name'])}»",
            kind=texts.DATASET_KINDS.get(str(payload["kind"]), "—"),
            id=payload["id"],
        )
    ]
    opened = links(
        (texts.OPEN_SSTOOLS, payload.get("sstools_url")),
        (texts.OPEN_SUPERSET, payload.get("superset_url")),
    )
    return "\n".join([*out, opened] if opened else out)
