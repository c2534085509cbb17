"""The words of a data question on a dataset, for the offline planner (issue 36).

:mod:`sstools.agent.offline.aggregates` writes a question in words («средняя температура по
регионам за последний месяц») as a SELECT over the dataset's columns with these; a change of
data asked in words (:data:`DATA_CHANGE`) is never written, only refused or asked for as SQL.
"""

from __future__ import annotations

import re

# Data questions in words on a dataset (offline/aggregates.py). The English word a column name
# carries for a Russian one: «выручка» is revenue_rub, «температура» avg_temp_c.
COLUMN_WORDS = (
    ("выручк", "revenue"), ("доход", "revenue"), ("оборот", "revenue"), ("температур", "temp"),
    ("нагрузк", "load"), ("пик", "peak"), ("потреблен", "consumption"), ("регион", "region"),
    ("сектор", "sector"), ("отрасл", "sector"), ("осадк", "precipitation"), ("продукт", "product"),
    ("товар", "product"), ("канал", "channel"), ("штук", "quantity"), ("округ", "district"),
    ("населен", "population"), ("дат", "date"), ("заказ", "order"), ("тариф", "tariff"),
    ("цен", "price"), ("клиент", "customer"), ("прибыл", "profit"), ("стоимост", "cost"),
    ("город", "city"), ("стран", "country"), ("категори", "category"), ("пользовател", "user"),
    ("потребля", "consumption"), ("электричеств", "consumption"), ("энерги", "consumption"),
    ("electricity", "consumption"), ("consum", "consumption"), ("жарк", "temp"),
    ("холодн", "temp"), ("тепл", "temp"), ("hot", "temp"), ("cold", "temp"), ("warm", "temp"),
    ("дожд", "precipitation"), ("rain", "precipitation"), ("продаж", "revenue"),
    ("sales", "revenue"), ("заработ", "revenue"), ("people", "population"),
    ("жител", "population"), ("людей", "population"), ("inhabitant", "population"),
)  # fmt: skip
# The function an aggregate word asks for, the first listed winning («средняя сумма» is an
# average); stems are folded as words are, so «srednyaya» is «средняя».
AGGREGATE_WORDS = (
    ("distinct", ("уникальн", "различн", "разных", "distinct", "unique")),
    ("avg", ("средн", "average", "avg", "mean")),
    ("max", ("максим", "наибольш", "highest", "max", "largest", "biggest")),
    ("min", ("миним", "наименьш", "lowest", "min", "smallest")),
    ("sum", ("сумм", "суммар", "итог", "total", "sum", "общ")),
)
GROUP_BY_WORDS = frozenset({"по", "by", "per", "разрезе", "каждому", "каждой", "each"})
# «по месяцам», "by week": a date's bucket; the same stems name a period's unit.
TIME_BUCKETS = (
    ("месяц", "month"), ("month", "month"), ("год", "year"), ("лет", "year"), ("year", "year"),
    ("недел", "week"), ("week", "week"), ("дн", "day"), ("день", "day"), ("day", "day"),
    ("дат", "day"),
)  # fmt: skip
# A calendar day in words: «5 декабря», «5-го декабря», "5th December"; "Dec 5", "December 5th".
DAY_THEN_MONTH = re.compile(r"(?<![\d.])(\d{1,2})(?:-?(?:го|ое|st|nd|rd|th))?\s+([a-zа-яё]{3,})")
MONTH_THEN_DAY = re.compile(r"(?<![a-zа-яё])([a-z]{3,})\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?![\d.])")
MONTHS = (
    ("январ", 1),
    ("феврал", 2),
    ("март", 3),
    ("апрел", 4),
    ("май", 5),
    ("мая", 5),
    ("мае", 5),
    ("июн", 6),
    ("июл", 7),
    ("август", 8),
    ("сентябр", 9),
    ("октябр", 10),
    ("ноябр", 11),
    ("декабр", 12),
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
)  # fmt: skip — English "may" is left out: it is far more often the verb
LAST_PERIOD = re.compile(
    r"(?:последн\w*|posledn\w*|last|past)\s+(?:(?P<count>[0-9]{1,3})\s+)?"
    r"(?P<unit>месяц\w*|недел\w*|год\w*|лет|дн\w*|день|days?|weeks?|months?|years?"
    r"|mesya\w*|nedel\w*|god\w*|dn\w*|den)",
    re.IGNORECASE,
)
HOW_MANY = re.compile(
    r"сколь?ко|скок|скока|skolko|skok|how many|number of|количеств\w*|число\b|kolichestv",
    re.IGNORECASE,
)
COUNT_UP = re.compile(r"посчитай|подсчитай|calculate|compute|poschitaj", re.IGNORECASE)
# «топ-5 регионов по выручке», "top 10 products", «5 самых крупных»: ranked, then cut.
TOP_N = re.compile(
    r"(?:top|топ|первы[ех])\s*-?\s*([0-9]{1,3})\b|\b([0-9]{1,3})\s+(?:самых|лучших|крупнейших|biggest"
    r"|largest|best)",
    re.IGNORECASE,
)
# «летом», "in winter": the months of a season.
SEASONS = (
    ("зим", (12, 1, 2)), ("winter", (12, 1, 2)), ("весн", (3, 4, 5)), ("spring", (3, 4, 5)),
    ("летом", (6, 7, 8)), ("летн", (6, 7, 8)), ("summer", (6, 7, 8)), ("осен", (9, 10, 11)),
    ("autumn", (9, 10, 11)),
)  # fmt: skip
DATE_RANGE = re.compile(
    r"date range|range of dates|диапазон дат|за какой период|какой период|какие даты"
    r"|(?:latest|earliest|newest|oldest|last|first) \w*date|последн\w* дат\w*|перв\w* дат\w*"
    r"|с какого числа|начинаются данные|since what date|начало данных"
    r"|свеж\w* дат\w*|до какой даты|до какого числа|с какой даты|since when|what dates"
    r"|first and last (?:date|day)|earliest and latest|с какой (?:даты|по какую)",
    re.IGNORECASE,
)
EMPTY_VALUES = re.compile(
    r"пуст\w*|\bnulls?\b|пропуск\w*|пропущ\w*|незаполн\w*|missing values?|blank", re.IGNORECASE
)
# «какой сектор потребляет больше всего», "the coldest day": ranked by the measure, the first
# row is the answer (most: descending; least: ascending).
MOST = re.compile(
    r"больше всего|сам\w* (?:больш|высок|жарк|тепл|крупн|дорог|много|прибыльн)\w*|наибольш\w*"
    r"|\bmost\b|highest|biggest|largest|hottest|warmest|wettest|rainiest|\bpeak\b",
    re.IGNORECASE,
)
LEAST = re.compile(
    r"меньше всего|сам\w* (?:мал|низк|холодн|маленьк|дешев)\w*|наименьш\w*|\bleast\b|lowest"
    r"|smallest|coldest|driest",
    re.IGNORECASE,
)
# «в какой день», "which day", "when": the row itself (its date) is the answer, not a group's.
WHICH_DAY = re.compile(
    r"\b(?:day|date|when)\b|(?<!\w)(?:день|дня|дату|дата|когда|den|kogda)(?!\w)", re.IGNORECASE
)
# A name inside a sentence («по Москве», "in Krasnodar"): capitalised, not a sentence's first.
PROPER_NAME = re.compile(r"(?<=[\w,;:] )[A-ZА-ЯЁ][a-zа-яё]{3,}")
# A Russian name's case ending («в Москве», «по Краснодару»): the stem matches every form.
NAME_ENDING = re.compile(r"(?<=[а-яё]{3})(?:ами|ом|ем|ой|ей|ах|ях|[аеиоуыюяй])$")
# A change of data asked in words, with no query given («удали тестовые заказы»).
DATA_CHANGE = re.compile(
    r"(?<!\w)(?:удали\w*|удалить|сотри|delete|remove|обнови\w*|update|вставь|добавь строк\w*"
    r"|insert|очисти\w*|truncate|drop|дропни|измени данные|поменяй значени\w*)(?!\w)",
    re.IGNORECASE,
)
