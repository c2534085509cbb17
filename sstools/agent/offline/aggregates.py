"""A data question in words on a dataset, as one SELECT over its columns (issue 36, round 3).

«средняя температура по регионам за последний месяц», "sum of revenue_rub by region», «сколько
регионов?», «есть ли пустые значения в колонке region?», "top 5 regions by revenue": with no
model, the question's words (folded to one Latin alphabet, so «skolko zakazov» reads as «сколько
заказов») are matched against the dataset's own columns (their names, and the English word a
Russian one stands for: «выручка» → revenue), an aggregate word picks the function, «по …» /
"by …" the grouping, a month, a season, a year or «последний месяц» the period, «топ 5» the
limit. Whatever it cannot place leaves the SQL to the person (None): a wrong number said with
confidence is worse than asking.

The SQL is a read on one table, written for the database's dialect (SQLite's date functions,
else standard SQL transpiled by sqlglot); it is shown before it runs and checked as any SQL is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import sqlglot
from sqlglot.dialects.dialect import Dialect

from sstools.agent.fleet import ListedColumn
from sstools.agent.routing.tokens import fold
from sstools.agent.texts import data_words
from sstools.agent.texts import vocabulary as vocab
from sstools.russian import normalize

_WORD = re.compile(r"[\w]+")
_NUMERIC = ("int", "real", "float", "double", "numeric", "decimal", "number", "money")
_TEMPORAL = ("date", "time")
# Superset's backend names that sqlglot spells otherwise.
_DIALECTS = {"postgresql": "postgres", "mssql": "tsql", "sqlite": "sqlite"}
_SQLITE_BUCKETS = {"year": "%Y", "month": "%Y-%m", "week": "%Y-%W", "day": "%Y-%m-%d"}
_SQLITE_PARTS = {"year": "%Y", "month": "%m"}


def _folded(pairs: Sequence[tuple[str, object]]) -> tuple[tuple[str, object], ...]:
    return tuple((fold(stem), value) for stem, value in pairs)


@cache
def _tables() -> dict[str, tuple[tuple[str, object], ...]]:
    """The vocabulary's stems folded as the words are, once."""
    aggregates = [
        (stem, function) for function, stems in data_words.AGGREGATE_WORDS for stem in stems
    ]
    return {
        "columns": _folded(data_words.COLUMN_WORDS),
        "aggregates": _folded(aggregates),
        "buckets": _folded(data_words.TIME_BUCKETS),
        "months": _folded([*data_words.MONTHS, *data_words.SEASONS]),
    }


def _lookup(table: str, word: str) -> object | None:
    return next((value for stem, value in _tables()[table] if word.startswith(stem)), None)


@dataclass(frozen=True)
class _Column:
    name: str
    parts: tuple[str, ...]
    numeric: bool  # a measure: summed, averaged (an identifier is counted, never summed)
    temporal: bool

    @classmethod
    def of(cls, column: ListedColumn) -> _Column:
        kind = (column.type or "").lower()
        parts = tuple(part for part in re.split(r"[^a-z0-9]+", column.name.lower()) if part)
        temporal = any(word in kind for word in _TEMPORAL) or column.name.lower() in {"day", "dt"}
        numeric = any(word in kind for word in _NUMERIC) and parts[-1:] != ("id",)
        return cls(column.name, parts, numeric, temporal)


@dataclass(frozen=True)
class _Period:
    """A period on the date column: months of the year, a year, or the last N units."""

    months: tuple[int, ...] = ()
    year: int | None = None
    last: tuple[int, str] | None = None  # (count, "day" | "month" | "year")


@cache
def _english(word: str) -> str | None:
    """The English word a column name would carry for a Russian one («vyruchku» → revenue)."""
    found = _lookup("columns", word)
    return found if isinstance(found, str) else None


def _names(word: str, column: _Column) -> bool:
    if word == column.name.lower():
        return True
    wanted = _english(word) or word
    if len(wanted) < 3:
        return False
    return any(
        part == wanted or (min(len(part), len(wanted)) >= 4 and
                           (wanted.startswith(part) or part.startswith(wanted)))
        for part in column.parts
    )  # fmt: skip


def _named(words: Sequence[str], columns: Sequence[_Column]) -> list[_Column]:
    """The columns the words name, the best matched first (most words), in the text's order."""
    hits: dict[str, tuple[int, int]] = {}
    for position, word in enumerate(words):
        for column in columns:
            if _names(word, column):
                count, first = hits.get(column.name, (0, position))
                hits[column.name] = (count + 1, first)
    by_name = {column.name: column for column in columns}
    return [by_name[name] for name in sorted(hits, key=lambda n: (-hits[n][0], hits[n][1]))]


def _grouped(words: Sequence[str], columns: Sequence[_Column]) -> tuple[str | None, _Column | None]:
    """What follows «по», "by", "per": a time bucket («по месяцам») or a column («по регионам»)."""
    for position, word in enumerate(words[:-1]):
        if word not in _GROUP_BY:
            continue
        following = words[position + 1]
        bucket = _lookup("buckets", following)
        if isinstance(bucket, str):
            return bucket, None
        found = [c for c in columns if not c.numeric and not c.temporal and _names(following, c)]
        if found:
            return None, found[0]
    return None, None


_GROUP_BY = frozenset(fold(word) for word in data_words.GROUP_BY_WORDS)


def _period(text: str, words: Sequence[str]) -> _Period | None:
    last = data_words.LAST_PERIOD.search(text)
    if last is not None:
        count = int(last.group("count") or 1)
        unit = _lookup("buckets", fold(last.group("unit")))
        if isinstance(unit, str):
            return _Period(last=(7 * count, "day") if unit == "week" else (count, unit))
    found = next((value for word in words if (value := _lookup("months", word))), None)
    months = found if isinstance(found, tuple) else (found,) if isinstance(found, int) else ()
    year = next((int(w) for w in words if re.fullmatch(r"(19|20)[0-9]{2}", w)), None)
    return _Period(months=months, year=year) if months or year else None


def _aggregate(words: Sequence[str], text: str) -> str | None:
    found = [value for word in words if isinstance(value := _lookup("aggregates", word), str)]
    order = [function for function, _ in data_words.AGGREGATE_WORDS]
    if found:
        return min(found, key=order.index)
    return "sum" if data_words.COUNT_UP.search(text) else None


@dataclass(frozen=True)
class _Sql:
    """Spells dates for one dialect: SQLite's functions, else standard SQL for sqlglot."""

    dialect: str | None

    @property
    def sqlite(self) -> bool:
        return self.dialect == "sqlite"

    def bucket(self, column: str, unit: str) -> str:
        if self.sqlite:
            return f"strftime('{_SQLITE_BUCKETS[unit]}', {column})"
        return f"DATE_TRUNC('{unit}', {column})"

    def part(self, column: str, unit: str, values: Sequence[int]) -> str:
        taken = (
            f"CAST(strftime('{_SQLITE_PARTS[unit]}', {column}) AS INTEGER)"
            if self.sqlite
            else f"EXTRACT({unit.upper()} FROM {column})"
        )
        if len(values) == 1:
            return f"{taken} = {values[0]}"
        return f"{taken} IN ({', '.join(str(value) for value in values)})"

    def since(self, column: str, count: int, unit: str) -> str:
        if self.sqlite:
            return f"{column} >= date('now', '-{count} {unit}')"
        return f"{column} >= CURRENT_DATE - INTERVAL '{count} {unit}'"

    def finish(self, sql: str) -> str:
        if self.sqlite or self.dialect is None:
            return sql
        return sqlglot.transpile(sql, read="postgres", write=self.dialect)[0]


@cache
def _dialect(backend: str | None) -> str | None:
    name = _DIALECTS.get((backend or "").lower(), (backend or "").lower())
    try:
        Dialect.get_or_raise(name)
    except ValueError:
        return None
    return name or None


def quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _alias(prefix: str, column: _Column) -> str:
    named = column.name if column.parts[:1] == (prefix,) else f"{prefix}_{column.name}"
    return quoted(named)  # avg(avg_temp_c) is avg_temp_c, not avg_avg_temp_c


def _picked(function: str, column: _Column) -> str:
    if function == "distinct":
        return f"COUNT(DISTINCT {quoted(column.name)}) AS {_alias('distinct', column)}"
    return f"{function.upper()}({quoted(column.name)}) AS {_alias(function, column)}"


def _where(period: _Period, on: str, sql: _Sql) -> list[str]:
    where = [sql.since(on, *period.last)] if period.last is not None else []
    where += [sql.part(on, "year", [period.year])] if period.year else []
    return where + ([sql.part(on, "month", period.months)] if period.months else [])


def _columns_asked(
    lower: str, words: Sequence[str], known: Sequence[_Column], date: _Column | None
) -> str | None:
    """The SELECT list of a question about the columns themselves: their dates' range, their
    empty values."""
    if data_words.DATE_RANGE.search(lower):
        if date is None:
            return None
        name = quoted(date.name)
        return f"MIN({name}) AS first_date, MAX({name}) AS last_date"
    named = _named(words, known)
    if data_words.EMPTY_VALUES.search(lower) and named:
        empty = (
            f"SUM(CASE WHEN {quoted(c.name)} IS NULL THEN 1 ELSE 0 END) AS {_alias('empty', c)}"
            for c in named[:3]
        )
        return "COUNT(*) AS row_count, " + ", ".join(empty)
    return None


def _top(lower: str) -> int | None:
    wanted = data_words.TOP_N.search(lower)
    return int(next(n for n in wanted.groups() if n)) if wanted else None


def _matching(text: str, known: Sequence[_Column]) -> list[str] | None:
    """«в Москве», "in Krasnodar": rows whose text columns hold a name (its stem, so «Москве»
    finds «Москва»; «в Москве и Питере»: either); a follow-up's own names replace the earlier
    message's («… по Москве? а по Питеру?»). None when no text column can hold them."""
    sentences = [_names_in(one) for one in vocab.SENTENCE_END.split(text)]
    found = next((names for names in reversed(sentences) if names), [])
    if not found:
        return []
    texts = [c for c in known if not c.numeric and not c.temporal and c.parts[-1:] != ("id",)]
    if not texts:
        return None
    # The name is letters only (the pattern's): a literal that needs no escaping.
    held = (f"{quoted(c.name)} LIKE '%{name}%'" for name in found for c in texts)
    return ["(" + " OR ".join(held) + ")"]


def _names_in(sentence: str) -> list[str]:
    return [data_words.NAME_ENDING.sub("", one) for one in data_words.PROPER_NAME.findall(sentence)]


def _ranked(lower: str, named: Sequence[_Column], date: _Column | None) -> tuple[str, str] | None:
    """«какой сектор потребляет больше всего?», "which region had the coldest day?": the SELECT
    list and the ranking whose first row answers — a group's total (an average for a measure that
    is one already), or the day itself when a day is asked."""
    most, least = data_words.MOST.search(lower), data_words.LEAST.search(lower)
    if bool(most) == bool(least):
        return None
    order = "DESC" if most else "ASC"
    measure = next((c for c in named if c.numeric), None)
    group = next((c for c in named if not c.numeric and not c.temporal), None)
    if measure is None:
        return None
    if date is not None and data_words.WHICH_DAY.search(lower):
        shown = ", ".join(quoted(c.name) for c in (date, *([group] if group else []), measure))
        return shown, f" ORDER BY {quoted(measure.name)} {order} LIMIT 1"
    if group is None:
        return None
    function = "avg" if measure.parts[:1] == ("avg",) else "sum"
    picked = _picked(function, measure)
    return f"{quoted(group.name)}, {picked}", f" GROUP BY 1 ORDER BY 2 {order} LIMIT 1"


def names_a_column(text: str, columns: Sequence[ListedColumn]) -> bool:
    """Whether the text names one of the columns («удали те, где quantity больше 15»)."""
    words = [fold(word) for word in _WORD.findall(normalize(text))]
    return bool(_named(words, [_Column.of(column) for column in columns]))


def select(
    text: str, table: str, columns: Sequence[ListedColumn], backend: str | None
) -> str | None:
    """The SELECT that answers the question on ``table`` (quoted), or None when it cannot say."""
    lower = normalize(text)
    words = [fold(word) for word in _WORD.findall(lower)]
    known = [_Column.of(column) for column in columns]
    matched = _matching(text, known)
    if matched is None:
        return None
    sql = _Sql(_dialect(backend))
    dates = [c for c in known if c.temporal]
    date = next(iter(_named(words, dates) or dates), None)
    asked = _columns_asked(lower, words, known, date)
    if asked is not None:
        return sql.finish(f"SELECT {asked} FROM {table}")  # noqa: S608 - identifiers quoted
    named = [c for c in _named(words, known) if c is not date]
    bucket, group = _grouped(words, known)
    period = _period(lower, words)
    if bucket is None and group is None:
        ranked = _ranked(lower, named, date)
        if ranked is not None:
            where = _where(period, quoted(date.name), sql) if period and date else []
            where += matched
            query = f"SELECT {ranked[0]} FROM {table}"  # noqa: S608 - identifiers quoted
            query += " WHERE " + " AND ".join(where) if where else ""
            return sql.finish(f"{query}{ranked[1]}")
    top = _top(lower)
    if top is not None and group is None:  # «топ-5 регионов по выручке»: ranked by the measure
        group = next((c for c in named if not c.numeric), None)
    function = _aggregate(words, lower) or ("sum" if top else None)
    counted = next((c for c in named if c is not group), None)
    if function is None and counted is not None and data_words.HOW_MANY.search(lower):
        function = "sum" if counted.numeric else "distinct"  # «сколько выручки», «сколько заказов»
    if function is None and counted is not None and counted.numeric and (period or matched):
        # «выручка по Москве за 2025»: the measure's total there (a mean stays a mean)
        function = "avg" if counted.parts[:1] == ("avg",) else "sum"
    if function not in (None, "distinct"):
        counted = next((c for c in named if c.numeric and c is not group), None)
    if function is None or counted is None or ((period or bucket) and date is None):
        return None
    where = _where(period, quoted(date.name), sql) if period and date else []
    where += matched
    head = ""
    if bucket is not None and date is not None:
        head = f"{sql.bucket(quoted(date.name), bucket)} AS {bucket}, "
    elif group is not None:
        head = f"{quoted(group.name)}, "
    query = f"SELECT {head}{_picked(function, counted)} FROM {table}"  # noqa: S608 - quoted
    query += " WHERE " + " AND ".join(where) if where else ""
    query += " GROUP BY 1" if head else ""
    query += f" ORDER BY 2 DESC LIMIT {top}" if top and head else " ORDER BY 1" if head else ""
    return sql.finish(query)
