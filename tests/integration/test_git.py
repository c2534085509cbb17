"""Git versioning on the real sandbox and a real repository: export, status, commit, branches."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from dulwich.refs import Ref
from dulwich.repo import Repo

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.git_store import normalise
from sstools.sandbox import Sandbox
from sstools.superset import SupersetClient
from tests.conftest import AuthHeaders, app_client

KPIS = "Energy KPIs"

GitApp = Callable[..., AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def git_app(settings: Settings, tmp_path: Path) -> GitApp:
    """``async with git_app(**settings) as client``: the app on a fresh repository in tmp_path."""

    @asynccontextmanager
    async def make(**overrides: Any) -> AsyncIterator[httpx.AsyncClient]:
        update = {"git_dir": tmp_path / "git", **overrides}
        async with app_client(settings.model_copy(update=update)) as client:
            yield client

    return make


@pytest.fixture
async def dev(sandbox: Sandbox) -> AsyncIterator[SupersetClient]:
    env = next(env for env in sandbox.environments() if env.id == "ss-dev")
    client = SupersetClient(env)
    yield client
    await client.aclose()


async def _dashboard_id(dev: SupersetClient, title: str) -> int:
    page = await dev.search_dashboards(title)
    return next(item.id for item in page.items if item.title == title)


async def _commit(
    client: httpx.AsyncClient, auth: AuthHeaders, ids: list[int], message: str, **extra: Any
) -> dict[str, Any]:
    response = await client.post(
        "/api/git/commits",
        json={"env_id": "ss-dev", "dashboard_ids": ids, "message": message, **extra},
        headers=auth(Role.engineer),
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def _status(client: httpx.AsyncClient, auth: AuthHeaders, dashboard_id: int) -> Any:
    response = await client.get(
        "/api/git/status",
        params={"env_id": "ss-dev", "dashboard_id": dashboard_id},
        headers=auth(Role.analyst),
    )
    assert response.status_code == 200, response.text
    return response.json()["dashboards"][0]


async def test_exporting_twice_gives_identical_secret_free_files(dev: SupersetClient) -> None:
    dashboard_id = await _dashboard_id(dev, KPIS)
    first = normalise(await dev.export_dashboards([dashboard_id]))
    second = normalise(await dev.export_dashboards([dashboard_id]))
    assert first == second
    assert {path.split("/")[0] for path in first} == {
        "dashboards",
        "charts",
        "datasets",
        "databases",
    }
    for path, content in first.items():
        if path.startswith("databases/"):
            assert b"password" not in content
            assert b"encrypted_extra" not in content


async def test_commit_status_and_health_follow_a_change_in_superset(
    git_app: GitApp, auth: AuthHeaders, dev: SupersetClient, tmp_path: Path
) -> None:
    dashboard_id = await _dashboard_id(dev, KPIS)
    other_id = await _dashboard_id(dev, "Отчёт по энергопотреблению")
    async with git_app() as client:
        assert (await _status(client, auth, dashboard_id))["status"] == "untracked"
        first = await _commit(client, auth, [dashboard_id], "KPI: первая версия")
        assert first["created"] is True
        dashboard_file = next(f["path"] for f in first["files"] if f["path"].startswith("dash"))
        assert (await _status(client, auth, dashboard_id))["status"] == "clean"
        assert (await _status(client, auth, other_id))["status"] == "untracked"

        again = await _commit(client, auth, [dashboard_id], "KPI: ничего нового")
        assert again["created"] is False
        assert again["commit"] is None
        assert again["files"] == []

        try:
            await dev.put_json(f"/api/v1/dashboard/{dashboard_id}", {"dashboard_title": "KPI 2"})
            modified = await _status(client, auth, dashboard_id)
            assert modified["status"] == "modified"
            assert [f["path"] for f in modified["changed_files"]] == [dashboard_file]
            health = await client.get(
                f"/api/dashboards/{dashboard_id}/health?env_id=ss-dev", headers=auth(Role.analyst)
            )
            assert health.json()["git_status"] == "изменён относительно ветки main (файлов: 1)"
            changed = await _commit(client, auth, [dashboard_id], "KPI: новое название")
        finally:
            await dev.put_json(f"/api/v1/dashboard/{dashboard_id}", {"dashboard_title": KPIS})
        assert changed["created"] is True
        assert changed["files"] == [{"path": dashboard_file, "change": "modified"}]
        assert changed["commit"]["author"] == "engineer <engineer@sstools>"
        assert changed["commit"]["message"].startswith("KPI: новое название")

        health = await client.get(
            f"/api/dashboards/{dashboard_id}/health?env_id=ss-dev", headers=auth(Role.analyst)
        )
        assert health.json()["git_status"] == "изменён относительно ветки main (файлов: 1)"
    # The empty first commit, the first version, the rename: the unchanged export added none.
    history = [entry.commit for entry in Repo(str(tmp_path / "git")).get_walker()]
    assert len(history) == 3
    assert history[0].id.decode() == changed["commit"]["id"]
    assert history[0].author == b"engineer <engineer@sstools>"


async def test_branches_are_created_listed_and_checked(git_app: GitApp, auth: AuthHeaders) -> None:
    async with git_app() as client:
        created = await client.post(
            "/api/git/branches", json={"name": "feature/kpi"}, headers=auth(Role.engineer)
        )
        assert created.status_code == 201, created.text
        assert created.json()["name"] == "feature/kpi"
        listed = await client.get("/api/git/branches", headers=auth(Role.analyst))
        assert [b["name"] for b in listed.json()] == ["feature/kpi", "main"]
        assert [b["default"] for b in listed.json()] == [False, True]
        twice = await client.post(
            "/api/git/branches", json={"name": "feature/kpi"}, headers=auth(Role.engineer)
        )
        assert twice.status_code == 409
        invalid = await client.post(
            "/api/git/branches", json={"name": "bad..name"}, headers=auth(Role.engineer)
        )
        assert invalid.status_code == 422
        unknown_start = await client.post(
            "/api/git/branches",
            json={"name": "x", "from": "no-such"},
            headers=auth(Role.engineer),
        )
        assert unknown_start.status_code == 404


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/git/branches", {"name": "feature/x"}),
        ("/api/git/commits", {"env_id": "ss-dev", "dashboard_ids": [10], "message": "m"}),
    ],
)
async def test_analyst_may_read_but_not_write(
    git_app: GitApp, auth: AuthHeaders, tmp_path: Path, path: str, body: dict[str, Any]
) -> None:
    async with git_app() as client:
        assert (
            await client.get("/api/git/branches", headers=auth(Role.analyst))
        ).status_code == 200
        response = await client.post(path, json=body, headers=auth(Role.analyst))
        assert response.status_code == 403
        branches = (await client.get("/api/git/branches", headers=auth(Role.analyst))).json()
    assert [b["name"] for b in branches] == ["main"]
    assert len(list(Repo(str(tmp_path / "git")).get_walker())) == 1


async def test_a_commit_is_pushed_to_a_bare_remote(
    git_app: GitApp, auth: AuthHeaders, tmp_path: Path, dev: SupersetClient
) -> None:
    remote = Repo.init_bare(str(tmp_path / "remote.git"), mkdir=True)
    async with git_app(git_remote=str(tmp_path / "remote.git")) as client:
        body = await _commit(client, auth, [await _dashboard_id(dev, KPIS)], "в удалённый")
    assert body["pushed"] is True
    assert remote.refs[Ref(b"refs/heads/main")].decode() == body["commit"]["id"]
