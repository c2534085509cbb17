"""Objects by name (issue 36): the dashboards, datasets and tasks a request means without an id.

The planner is handed the fleet (:mod:`sstools.agent.fleet`); here a request's words are matched
against it the way the router compares words — folded to one Latin alphabet and cut to a stem, so
«ё» and «е», «отчет» and «Отчёт», a case or an ending do not matter — and across Russian and
English (:data:`~sstools.agent.texts.vocabulary.TITLE_TRANSLATIONS`: «про погоду» finds
«Weather Overview»).

- :func:`named`: the dashboards whose every title word the request says («сравни Energy KPIs»);
- :func:`about`: the dashboards any of whose title words the request's topic says («есть ли
  дашборд про погоду?»);
- :func:`same_in`: a dashboard's namesake in another environment (its id differs there);
- :func:`latest_task`: the newest task record of a kind (and environment, and person).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from functools import cache

from sstools.agent.fleet import Fleet, Listed, ListedDataset, ListedTask
from sstools.agent.routing.tokens import STOP, WORD, fold, stem, words
from sstools.agent.texts import vocabulary as vocab
from sstools.storage.task_history import undone_by

# Title words that say nothing of what a dashboard is about: matched only as part of a title.
_WEAK = frozenset(stem(word) for word in vocab.WEAK_TITLE_WORDS)


@cache
def _translations() -> dict[str, frozenset[str]]:
    pairs: dict[str, set[str]] = {}
    for russian, english in vocab.TITLE_TRANSLATIONS:
        one, other = stem(russian), stem(english)
        pairs.setdefault(one, set()).add(other)
        pairs.setdefault(other, set()).add(one)
    return {key: frozenset(value) for key, value in pairs.items()}


def _stems(text: str) -> set[str]:
    return {stem(word) for word in WORD.findall(text) if fold(word) not in STOP}


def _title_stems(title: str) -> set[str]:
    return {one for one in _stems(title) if one not in _WEAK and not one.isdigit()}


def _with_translations(stems: Iterable[str]) -> set[str]:
    out = set(stems)
    for one in list(out):
        out |= _translations().get(one, frozenset())
    return out


def _in(fleet: Fleet, env_id: str | None) -> list[Listed]:
    return [one for one in fleet.dashboards if env_id is None or one.env_id == env_id]


def named(text: str, fleet: Fleet, env_id: str | None) -> list[Listed]:
    """The dashboards of ``env_id`` whose title the text says in full (every word), but for a
    title inside a longer one said: «Отчёт по энергопотреблению», not a shorter one it contains."""
    said = _with_translations(_stems(text))
    found = [one for one in _in(fleet, env_id) if (t := _title_stems(one.title)) and t <= said]
    if not found:  # a typo or a letter short: «Executiv Sumary», «по регоинам», «Energy KPI»
        found = [
            one
            for one in _in(fleet, env_id)
            if (t := _title_stems(one.title)) and all(_close(word, said) for word in t)
        ]
    longest = max((len(_title_stems(one.title)) for one in found), default=0)
    return [one for one in found if len(_title_stems(one.title)) == longest]


# How alike two stems must be to be one word mistyped (difflib's ratio: 4 letters of 5 agree).
_ALIKE = 0.8


# A word cut short stands for the title's word it begins («exec summary», «мониторинг сет»).
_SHORTENED = 4


def _close(word: str, said: set[str]) -> bool:
    return any(
        one[:1] == word[:1]
        and (
            SequenceMatcher(None, word, one).ratio() >= _ALIKE
            or (len(one) >= _SHORTENED and word.startswith(one))
        )
        for one in said
    )


def about(text: str, fleet: Fleet, env_id: str | None, *, every_word: bool = False) -> list[Listed]:
    """The dashboards of ``env_id`` a topic is about: those that share the most words with it, in
    Russian or English («про продажи»: «Продажи по регионам», «Каналы продаж», «Regional Sales
    Trends»);
    ``every_word``: a weak word too («кроме архива» is «Тарифы 2023 (архив)»)."""
    topic = _with_translations(stem(word) for word in words(text))
    shared = {
        one.id: len((_stems(one.title) if every_word else _title_stems(one.title)) & topic)
        for one in _in(fleet, env_id)
    }
    most = max(shared.values(), default=0)
    # "peak load": «Пиковые нагрузки», which says both, not every title with a load in it
    return [one for one in _in(fleet, env_id) if shared[one.id] and shared[one.id] == most]


def titled(fleet: Fleet, env_id: str | None, dashboard_id: int | None) -> Listed | None:
    return next(
        (one for one in _in(fleet, env_id) if one.id == dashboard_id),
        None,
    )


def same_in(fleet: Fleet, dashboard: Listed, env_id: str) -> Listed | None:
    """The dashboard of ``env_id`` with the same title (a fleet's copies keep their titles)."""
    return next((one for one in _in(fleet, env_id) if one.title == dashboard.title), None)


def dataset(fleet: Fleet, env_id: str | None, dataset_id: int | None) -> ListedDataset | None:
    return next(
        (one for one in fleet.datasets if one.env_id == env_id and one.id == dataset_id), None
    )


def dataset_named(text: str, fleet: Fleet, env_id: str | None) -> ListedDataset | None:
    """The one dataset of ``env_id`` whose table the text names as a word («в sales_orders»)."""
    said = {fold(word) for word in WORD.findall(text)}
    found = [one for one in fleet.datasets if one.env_id == env_id and fold(one.name) in said]
    return found[0] if len(found) == 1 else None


def latest_task(
    fleet: Fleet,
    kinds: Sequence[str],
    env_id: str | None = None,
    *,
    mine: bool = False,
    prefix: str | None = None,
) -> list[ListedTask]:
    """The task records that fit, newest first: of these kinds, writing ``env_id``, started by
    the person asking (``mine``), whose id starts with ``prefix``."""
    return [
        task
        for task in fleet.tasks
        if (not kinds or task.kind in kinds)
        and (env_id is None or task.env_id == env_id)
        and (not mine or task.started_by == fleet.me)
        and (prefix is None or task.id.startswith(prefix.lower()))
    ]


def says_mine(text: str) -> bool:
    """«моя миграция», "my deploy": the person's own."""
    return vocab.MINE.search(text) is not None


def rolled_back(fleet: Fleet, deploy: ListedTask) -> bool:
    """Whether ``deploy`` was undone already (the rule the web's «Откатить…» follows too)."""
    return undone_by(fleet.tasks, deploy) is not None
