"""What the fleet holds by name, for the offline planner (issue 36): titles and task records.

A model reads the tools' answers; the offline planner has to resolve «Energy KPIs», «дашборд про
погоду» or «последняя выкатка» before its first call. So at the start of an offline turn the graph
reads, over HTTP with the person's own token — the same domain API the tools call, never a
domain module — each environment's dashboards and datasets and the latest task records
(:class:`FleetReader`), and hands them to the planner beside the page's context, in the system
message's ``additional_kwargs`` (:func:`hand`, :func:`handed`). A listing that fails is empty:
the planner then asks back, as before. Listings are kept a short while per person
(``ttl_s``), so a conversation's turns do not list the fleet each time.

A model is never sent any of it: the offline planner alone reads ``additional_kwargs``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, ValidationError

_HANDED = "fleet"  # the system message's additional_kwargs key the planner reads
PAGE_SIZE = 100  # one page of each listing: the names a person could mean
TASKS = 50  # the latest task records


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class Listed(_Frozen):
    """A dashboard of an environment, by its title."""

    env_id: str
    id: int
    title: str


class ListedColumn(_Frozen):
    name: str
    type: str | None = None


class ListedDataset(_Frozen):
    """A dataset of an environment: its table, where it lives; for the page's dataset, its
    columns and its database's kind too (a data question in words is written over them)."""

    env_id: str
    id: int
    name: str
    schema_name: str | None = None
    database_id: int | None = None
    columns: list[ListedColumn] = []
    database_backend: str | None = None


class ListedTask(_Frozen):
    """A task record as ``GET /api/tasks`` lists it (newest first)."""

    id: str
    kind: str
    status: str
    env_id: str | None = None
    objects: list[str] = []
    started_by: str | None = None
    error: str | None = None
    created_at: str | None = None


class Fleet(_Frozen):
    """What the planner may resolve names against; ``me``: the person asking («моя миграция»)."""

    dashboards: list[Listed] = []
    datasets: list[ListedDataset] = []
    tasks: list[ListedTask] = []
    me: str | None = None


def hand(system: SystemMessage, fleet: Fleet) -> SystemMessage:
    """The system message with the fleet handed beside it (never in its text)."""
    kwargs = {**system.additional_kwargs, _HANDED: fleet.model_dump(mode="json")}
    return SystemMessage(system.content, additional_kwargs=kwargs)


def handed(messages: Sequence[BaseMessage]) -> Fleet:
    """The fleet handed with the system message; empty when none was (a model's turn, a test)."""
    system = next((m for m in messages if isinstance(m, SystemMessage)), None)
    raw = system.additional_kwargs.get(_HANDED) if system else None
    if raw is None:
        return Fleet()
    try:
        return Fleet.model_validate(raw)
    except ValidationError:
        return Fleet()


_M = TypeVar("_M", bound=BaseModel)

# The dataset a page shows: its environment and id.
PageDataset = tuple[str, int]

# GET path, query → the JSON answer, or None when it failed (the executor's read_json).
Read = Callable[[str, dict[str, Any], str], Awaitable[Any]]


def _items(answer: Any) -> list[dict[str, Any]]:
    listed = answer.get("items") if isinstance(answer, dict) else answer
    return [item for item in listed or [] if isinstance(item, dict)]


def _valid(model: type[_M], raw: dict[str, Any]) -> _M | None:
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None


def _dataset(item: dict[str, Any], env_id: str) -> dict[str, Any]:
    return {**item, "env_id": env_id, "schema_name": item.get("schema")}


class FleetReader:
    """Reads the fleet over HTTP with the person's token; kept ``ttl_s`` per person."""

    def __init__(
        self,
        read: Read,
        environment_ids: Sequence[str],
        *,
        ttl_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._read = read
        self._environments = tuple(environment_ids)
        self._ttl_s = ttl_s
        self._clock = clock
        self._kept: dict[tuple[str, PageDataset | None], tuple[float, Fleet]] = {}

    async def fleet(self, username: str, token: str, dataset: PageDataset | None = None) -> Fleet:
        """The fleet as ``username`` may see it; with the page's dataset's columns when a page
        shows one (``dataset``: its environment and id)."""
        key = (username, dataset)
        kept = self._kept.get(key)
        now = self._clock()
        if kept is not None and now - kept[0] < self._ttl_s:
            return kept[1]
        made = await self._list(username, token)
        if dataset is not None:
            made = await self._with_columns(made, dataset, token)
        self._kept[key] = (now, made)
        return made

    async def _with_columns(self, made: Fleet, dataset: PageDataset, token: str) -> Fleet:
        env_id, dataset_id = dataset
        detail = await self._read(f"/api/datasets/{dataset_id}", {"env_id": env_id}, token)
        if not isinstance(detail, dict):
            return made
        listed = _valid(ListedDataset, _dataset(detail, env_id))
        if listed is None:
            return made
        others = [d for d in made.datasets if (d.env_id, d.id) != (env_id, dataset_id)]
        return made.model_copy(update={"datasets": [listed, *others]})

    async def _list(self, username: str, token: str) -> Fleet:
        envs = self._environments
        reads = [
            *(
                self._read("/api/dashboards", {"env_id": e, "page_size": PAGE_SIZE}, token)
                for e in envs
            ),
            *(
                self._read("/api/datasets", {"env_id": e, "page_size": PAGE_SIZE}, token)
                for e in envs
            ),
            self._read("/api/tasks", {"limit": TASKS}, token),
        ]
        answers = await asyncio.gather(*reads)
        count = len(self._environments)
        dashboards = [
            made
            for env, answer in zip(self._environments, answers[:count], strict=True)
            for item in _items(answer)
            if (made := _valid(Listed, {**item, "env_id": env})) is not None
        ]
        datasets = [
            one
            for env, answer in zip(self._environments, answers[count : 2 * count], strict=True)
            for item in _items(answer)
            if (one := _valid(ListedDataset, _dataset(item, env))) is not None
        ]
        tasks = [task for item in _items(answers[-1]) if (task := _valid(ListedTask, item))]
        return Fleet(dashboards=dashboards, datasets=datasets, tasks=tasks, me=username)
