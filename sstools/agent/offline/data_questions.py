"""A data question on a dataset (issue 36): «сколько строк?», «первые 10 строк», «средняя
температура по регионам» as the SELECT on the page's dataset (or the table it names), and a
change of its rows asked in words, which is never written (:mod:`.aggregates` writes the SELECT
over the columns)."""

from __future__ import annotations

from typing import Any

from sstools.agent.context import ObjectType, UIContext
from sstools.agent.fleet import Fleet
from sstools.agent.offline import aggregates, names
from sstools.agent.offline.slots import Said
from sstools.agent.texts import data_words
from sstools.agent.texts import vocabulary as vocab


def _rows(prose: str) -> int | None:
    wanted = vocab.ROWS_WANTED.search(prose)
    if wanted is None:
        return None
    count = wanted.group(1).lower()
    if count.isdigit():
        return int(count)
    return next((n for word, n in vocab.NUMBER_WORDS.items() if count.startswith(word)), None)


def data_change(said: Said, context: UIContext | None, fleet: Fleet) -> bool:
    """A change of the page's dataset's rows asked in words («удали те, где quantity > 15»)."""
    if context is None or context.object_type is not ObjectType.dataset:
        return False
    table = names.dataset(fleet, context.env_id, int(context.object_id or 0))
    changing = data_words.DATA_CHANGE.search(said.prose) is not None
    return changing and table is not None and aggregates.names_a_column(said.prose, table.columns)


def data_question(said: Said, context: UIContext | None, fleet: Fleet) -> str | None:
    """The SELECT a data question asks on the page's dataset (or the table it names), if any."""
    return query_args({}, said, context, fleet).get("sql")


def query_args(
    args: dict[str, Any], said: Said, context: UIContext | None, fleet: Fleet
) -> dict[str, Any]:
    """«сколько строк?», «первые 10 строк» on a dataset's page (or naming its table, «сколько
    строк в sales_orders»): the query on its table."""
    if context is None:
        return args
    on_dataset = context.object_type is ObjectType.dataset and context.object_id is not None
    counting = vocab.COUNT_ROWS.search(said.prose) is not None
    table = (
        names.dataset(fleet, context.env_id, int(context.object_id or 0))
        if on_dataset
        else names.dataset_named(said.prose, fleet, context.env_id)
    )
    if table is None or data_words.DATA_CHANGE.search(said.prose):
        return args  # «удали те, где channel пустой» asks for no read: its SQL is asked for
    parts = [table.schema_name, table.name] if table.schema_name else [table.name]
    where = ".".join(aggregates.quoted(part) for part in parts)
    # Identifiers quoted, the limit a number; the SQL is shown and checked as any (a read).
    if counting:
        sql: str | None = f"SELECT count(*) AS row_count FROM {where}"  # noqa: S608
    elif vocab.ROWS_WANTED.search(said.prose):
        limit = _rows(said.prose) or 10
        sql = f"SELECT * FROM {where} LIMIT {limit}"  # noqa: S608
        args["limit"] = limit
    else:  # «средняя температура по регионам»: over its columns, when the page's dataset
        sql = aggregates.select(said.prose, where, table.columns, table.database_backend)
    if sql is None:
        return args  # nothing it can write: the SQL is asked for
    args["sql"] = sql
    if table.database_id is not None:
        args["database_id"] = table.database_id
    return args
