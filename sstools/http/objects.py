"""The object a page names, as Superset has it: its real name and UUID in one environment, and
the same object (matched by UUID) in another.

A page's URL carries an id and a display name; neither is trusted. ``GET /api/objects/...``
answers the page's chip, and the agent's turn asks it for the context's object by name.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel

from sstools.superset import SupersetClient, SupersetNotFound, SupersetPool
from sstools.texts import objects as texts


class ObjectKind(StrEnum):
    dashboard = "dashboard"
    dataset = "dataset"


class ObjectInEnvironment(BaseModel):
    """``present`` False: the environment has no such object (``object_id``/``name`` None)."""

    object_type: ObjectKind
    env_id: str
    object_id: int | None
    name: str | None
    uuid: str | None
    present: bool


class DashboardColumns(BaseModel):
    """The columns a dashboard's native filters may name: its datasets' columns."""

    env_id: str
    dashboard_id: int
    columns: list[str]


async def _find(
    client: SupersetClient, kind: ObjectKind, column: Literal["id", "uuid"], value: int | str
) -> ObjectInEnvironment | None:
    env_id = client.env.id
    if kind is ObjectKind.dashboard:
        dashboard = await client.find_dashboard(column, value)
        if dashboard is None:
            return None
        uuid, summary = dashboard
        found_id, name = summary.id, summary.title
    else:
        dataset = await client.find_dataset(column, value)
        if dataset is None:
            return None
        uuid, dataset_summary = dataset
        found_id, name = dataset_summary.id, dataset_summary.name
    return ObjectInEnvironment(
        object_type=kind, env_id=env_id, object_id=found_id, name=name, uuid=uuid, present=True
    )


async def find_object(
    pool: SupersetPool, env_id: str, kind: ObjectKind, object_id: int
) -> ObjectInEnvironment:
    """The object ``object_id`` of ``env_id``; :class:`SupersetNotFound` when there is none."""
    found = await _find(pool.client(env_id), kind, "id", object_id)
    if found is None:
        raise SupersetNotFound(env_id, texts.NOT_FOUND[kind].format(id=object_id))
    return found


async def same_object_in(
    pool: SupersetPool, env_id: str, kind: ObjectKind, object_id: int, other_env_id: str
) -> ObjectInEnvironment:
    """The object ``object_id`` of ``env_id`` as ``other_env_id`` has it, matched by UUID."""
    source = await find_object(pool, env_id, kind, object_id)
    if other_env_id == env_id or source.uuid is None:
        return source
    found = await _find(pool.client(other_env_id), kind, "uuid", source.uuid)
    absent = ObjectInEnvironment(
        object_type=kind,
        env_id=other_env_id,
        object_id=None,
        name=None,
        uuid=source.uuid,
        present=False,
    )
    return found or absent


async def dashboard_columns(pool: SupersetPool, env_id: str, dashboard_id: int) -> DashboardColumns:
    """The columns of ``dashboard_id``'s datasets; :class:`SupersetNotFound` with no dashboard."""
    await find_object(pool, env_id, ObjectKind.dashboard, dashboard_id)
    columns = await pool.client(env_id).dashboard_columns(dashboard_id)
    return DashboardColumns(env_id=env_id, dashboard_id=dashboard_id, columns=columns)
