"""Caps on starting tasks: unfinished tasks per user, validations and documentations per
dashboard — each a 429 with ``Retry-After`` that says what to do."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel
from sqlalchemy import select

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.http.auth import CurrentUser
from sstools.storage.models import AuditEntry
from sstools.tasks import Task, TaskKind, TaskStatus, TooManyTasks, _runtime
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.conftest import AuthHeaders
from tests.tasks.conftest import Served
from tests.tasks.support import eventually, task_reaches
from tests.tasks.workflows import gate, write_steps

CAPPED = (
    "у вас уже выполняется столько задач, сколько можно одному пользователю (предел: 2); "
    "дождитесь, пока одна из них закончится, и повторите"
)


@pytest.fixture
async def settings(settings: Settings) -> Settings:
    return settings.model_copy(
        update={
            "tasks_per_user": 2,
            "validation_limit_per_dashboard": "2/hour",
            "documentation_limit_per_dashboard": "1/hour",
        }
    )


class StartBody(BaseModel):
    folder: str
    key: str


@pytest.fixture
def starting(served: Served) -> Served:
    """A start route like the deploy ones: one gated step in its own folder."""

    @served.app.post("/test/tasks")
    async def start(body: StartBody, user: CurrentUser) -> Task:
        return await served.tasks.start(
            TaskKind.deploy,
            env_id="ss-dev",
            source="ss-dev",
            objects=[body.key],
            object_keys=[body.key],
            started_by=user.username,
            workflow=write_steps,
            args=(body.folder, 1, True),
        )

    return served


def _gated(folder: Path, name: str) -> dict[str, str]:
    (folder / name).mkdir()
    return {"folder": str(folder / name), "key": f"dashboard:{name}"}


async def test_the_users_task_past_the_cap_is_429_until_one_of_theirs_finishes(
    starting: Served, folder: Path, auth: AuthHeaders
) -> None:
    client, engineer = starting.client, auth(Role.engineer)
    first, second, third = (_gated(folder, name) for name in ("a", "b", "c"))
    started = [
        await client.post("/test/tasks", json=body, headers=engineer) for body in (first, second)
    ]
    assert [answer.status_code for answer in started] == [200, 200]

    refused = await client.post("/test/tasks", json=third, headers=engineer)
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "30"
    assert refused.json() == {"detail": CAPPED}
    # Another user is not held back by this one's tasks.
    other = await client.post("/test/tasks", json=_gated(folder, "d"), headers=auth(Role.admin))
    assert other.status_code == 200

    gate(Path(first["folder"]), 1).touch()
    await task_reaches(starting.tasks, started[0].json()["id"], TaskStatus.succeeded)
    freed = await client.post("/test/tasks", json=third, headers=engineer)
    assert freed.status_code == 200, freed.text

    async with starting.app.state.services.sessions() as session:
        throttled = (
            await session.scalars(
                select(AuditEntry.username).where(
                    AuditEntry.action == "task_started", AuditEntry.outcome == "throttled"
                )
            )
        ).all()
    assert throttled == ["engineer"]
    for body in (second, third, {"folder": str(folder / "d")}):
        gate(Path(body["folder"]), 1).touch()


async def test_of_eight_parallel_starts_of_one_user_exactly_the_cap_win(
    served: Served, folder: Path
) -> None:
    outcomes = await asyncio.gather(
        *(
            served.tasks.start(
                TaskKind.deploy,
                env_id="ss-dev",
                source="ss-dev",
                objects=[f"D{n}"],
                object_keys=[f"dashboard:{n}"],
                started_by="ирина",
                workflow=write_steps,
                args=(str(folder), 1, True),
            )
            for n in range(8)
        ),
        return_exceptions=True,
    )
    won = [outcome for outcome in outcomes if isinstance(outcome, Task)]
    capped = [outcome for outcome in outcomes if isinstance(outcome, TooManyTasks)]
    others = [outcome for outcome in outcomes if not isinstance(outcome, Task | TooManyTasks)]
    assert (len(won), len(capped)) == (2, 6), others
    assert len(await served.tasks.list()) == 2  # a refused start leaves no record


DASHBOARDS = [
    {"id": 3, "dashboard_title": "Отчёт", "published": True},
    {"id": 4, "dashboard_title": "Продажи", "published": True},
]


@pytest.fixture
async def dashboards(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(
        settings, superset_transport=RoutingTransport(FakeSuperset(dashboards=DASHBOARDS))
    )
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://sstools.test"
        ) as client,
    ):
        yield client

        async def idle() -> bool:
            return not _runtime.active()

        await eventually(idle)


async def _run(client: httpx.AsyncClient, headers: dict[str, str], path: str) -> httpx.Response:
    """Start it; when accepted, wait for it to end (a running one would be a 409 instead)."""
    started = await client.post(path, params={"env_id": "ss-dev"}, headers=headers)
    if started.status_code == 202:

        async def ended() -> bool:
            shown = await client.get(f"/api/tasks/{started.json()['id']}", headers=headers)
            return TaskStatus(shown.json()["status"]).finished

        await eventually(ended)
    return started


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
async def test_validating_or_documenting_one_dashboard_too_often_is_429(
    dashboards: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    analyst = auth(Role.analyst)
    validations = [await _run(dashboards, analyst, "/api/dashboards/3/validate") for _ in range(3)]
    assert [answer.status_code for answer in validations] == [202, 202, 429]
    refused = validations[-1]
    wait = int(refused.headers["Retry-After"])
    assert 3500 < wait <= 3600
    assert refused.json()["detail"] == (
        "дашборд «Отчёт» в окружении ss-dev уже проверяли 2 раза за 1 ч — это предел; "
        f"следующую проверку можно начать через {wait} с"
    )
    # Another dashboard has its own window; so has another kind of task on the same one.
    assert (await _run(dashboards, analyst, "/api/dashboards/4/validate")).status_code == 202
    documents = [await _run(dashboards, analyst, "/api/dashboards/3/document") for _ in range(2)]
    assert [answer.status_code for answer in documents] == [202, 429]
    assert (
        documents[-1]
        .json()["detail"]
        .startswith(
            "документацию дашборда «Отчёт» в окружении ss-dev уже писали 1 раз за 1 ч — это предел"
        )
    )
    assert "Retry-After" in documents[-1].headers
