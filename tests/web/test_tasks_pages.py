"""The task pages without a browser: /tasks with its filters, a task page in words, a
dashboard's deploy history by UUID, «Откатить» and «Открыть в Superset» links, the home page
with a stopped environment, settings; never a raw 32-hex id or UUID in what people read."""

from __future__ import annotations

import html
import re
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit
from uuid import NAMESPACE_URL, uuid4, uuid5

import httpx
import pytest

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.environments import EnvironmentRegistry
from sstools.testing.fake_superset import FakeSuperset
from sstools.web._task_words import Place, source_place
from tests.conftest import AuthHeaders, app_client
from tests.rig import AnswersHealth, store_rows, task_record

RAW_ID = re.compile(r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
DASHBOARD_UUID = str(uuid5(NAMESPACE_URL, "3"))  # the fake's UUID of dashboard 3


def text_of(page: str) -> str:
    """What a person reads: the body without tags, attributes or the catalogue blob."""
    body = page.split("<body", 1)[1].split(">", 1)[1] if "<body" in page else page
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


async def seed(settings: Settings, **fields: Any) -> str:
    record = task_record(**({"created_at": NOW} | fields))
    await store_rows(settings, record)
    return record.id


def deploy(**fields: Any) -> dict[str, Any]:
    snapshot = {"branch": "snapshots/x", "commit": "c" * 40, "dashboards": [], "files": 4}
    return {
        "kind": "deploy",
        "objects": ["Отчёт"],
        "object_keys": [f"dashboard:{DASHBOARD_UUID}"],
        "source": "staging",
        "status": "succeeded",
        "result": {"imported": ["Отчёт"], "not_imported": [], "snapshot": snapshot},
        "started_at": NOW,
        "finished_at": NOW + timedelta(seconds=20),
        **fields,
    }


@pytest.fixture
def signed_in(
    client: httpx.AsyncClient, token_for: Callable[[Role], str]
) -> Callable[[Role], None]:
    def sign_in(role: Role) -> None:
        client.cookies.set("sstools_session", token_for(role))

    return sign_in


async def test_the_list_says_each_task_in_words_newest_first_and_filters(
    client: httpx.AsyncClient, settings: Settings, signed_in: Callable[[Role], None]
) -> None:
    older = await seed(settings, **deploy(created_at=NOW - timedelta(hours=1)))
    running = await seed(
        settings,
        kind="migration",
        objects=["Energy KPIs", "Executive Summary"],
        source="ss-dev",
        env_id="prod",
        status="running",
        progress={"step": 2, "total": 3, "name": "импорт «Energy KPIs»"},
    )
    signed_in(Role.analyst)
    page = await client.get("/tasks")
    assert page.status_code == 200
    words = " ".join(text_of(page.text).split())
    assert "миграция «Energy KPIs», «Executive Summary»" in words
    assert "шаг 2 из 3: импорт «Energy KPIs»" in words
    assert "выкатка «Отчёт»" in words
    assert "выполнена" in words
    assert "30 ноября 2026, 09:15" in words
    assert words.index(running[:8]) < words.index(older[:8])  # newest first
    assert RAW_ID.findall(words) == []
    assert f'href="/tasks/{running}"' in page.text

    only_deploys = text_of((await client.get("/tasks?kind=deploy&status=&env_id=")).text)
    assert older[:8] in only_deploys
    assert running[:8] not in only_deploys
    in_prod = text_of((await client.get("/tasks?env_id=prod&started_by=engineer")).text)
    assert running[:8] in in_prod
    assert older[:8] not in in_prod
    assert "Задач нет" in text_of((await client.get("/tasks?started_by=nobody")).text)
    bad = await client.get("/tasks?kind=drop", headers={"Accept": "text/html"})
    assert bad.status_code == 422
    assert "Вид: нет такого значения «drop»" in text_of(bad.text)


async def test_a_task_page_reads_in_words_with_links_and_a_rollback(
    client: httpx.AsyncClient,
    settings: Settings,
    fake_superset: FakeSuperset,
    signed_in: Callable[[Role], None],
) -> None:
    fake_superset.dashboards = [{"id": 3, "dashboard_title": "Отчёт", "published": True}]
    task_id = await seed(settings, **deploy(env_id="ss-dev", source="prod"))
    signed_in(Role.engineer)
    page = await client.get(f"/tasks/{task_id[:8]}")  # people quote the first 8 digits
    assert page.status_code == 200
    words = " ".join(text_of(page.text).split())
    assert f"Выкатка «Отчёт» Задача {task_id[:8]}" in words
    assert "Импортированы «Отчёт»" in words
    assert "Снимок сохранён в git (файлов: 4)" in words
    assert RAW_ID.findall(words) == []
    # ss-dev (the target) has the dashboard; prod (the source) does not answer: no link there.
    assert 'href="/dashboards/3?env_id=ss-dev"' in page.text
    assert 'href="http://superset.test/superset/dashboard/3/"' in page.text
    [rollback] = re.findall(r'class="button action-rollback" href="([^"]+)"', page.text)
    query = parse_qs(urlsplit(html.unescape(rollback)).query)
    assert urlsplit(rollback).path == "/agent"
    assert query == {
        "envId": ["ss-dev"],
        "route": [f"/tasks/{task_id}"],
        "prompt": [f"откати выкатку {task_id[:8]}"],
    }
    signed_in(Role.analyst)  # may not roll back: no button
    assert "action-rollback" not in (await client.get(f"/tasks/{task_id}")).text


async def test_only_a_finished_deploy_with_a_snapshot_offers_a_rollback(
    client: httpx.AsyncClient,
    settings: Settings,
    signed_in: Callable[[Role], None],
    auth: AuthHeaders,
) -> None:
    no_snapshot = await seed(settings, **deploy(result={"imported": ["Отчёт"]}))
    running = await seed(settings, **deploy(status="running", finished_at=None))
    rollback = await seed(
        settings,
        **deploy(
            kind="rollback",
            source=f"git:snapshots/{no_snapshot}@{'c' * 12}",
            result={"restored": ["Отчёт"], "unchanged": [], "deleted": ["Новый график"]},
        ),
    )
    signed_in(Role.admin)
    for task_id in (no_snapshot, running, rollback):
        assert "action-rollback" not in (await client.get(f"/tasks/{task_id}")).text
    words = " ".join(text_of((await client.get(f"/tasks/{rollback}")).text).split())
    assert f"Откуда снимок перед выкаткой {no_snapshot[:8]}" in words
    assert "Восстановлены «Отчёт»" in words
    assert "Удалены «Новый график»" in words
    assert RAW_ID.findall(words) == []
    asked = await client.post(
        f"/api/deploy/{no_snapshot}/rollback/plan",
        json={"env_id": "ss-dev"},
        headers=auth(Role.admin),
    )
    assert asked.status_code == 409
    assert asked.json()["detail"] == (
        f"у задачи {no_snapshot[:8]} нет снимка, откатить её нельзя: по настройкам sstools "
        "окружения стадии «разработка» не снимаются перед выкаткой, "
        "или задача остановилась до снимка"
    )


async def test_a_deploy_a_rollback_undid_offers_no_rollback_anywhere(
    client: httpx.AsyncClient,
    settings: Settings,
    fake_superset: FakeSuperset,
    signed_in: Callable[[Role], None],
) -> None:
    fake_superset.dashboards = [{"id": 3, "dashboard_title": "Отчёт", "published": True}]
    undone = await seed(settings, **deploy())
    later = {"kind": "rollback", "source": f"git:snapshots/{undone}@{'c' * 12}", "result": {}}
    await seed(settings, **deploy(**later, created_at=NOW + timedelta(minutes=5)))
    # A rollback that failed undid nothing: that deploy still offers one.
    kept = await seed(settings, **deploy(env_id="prod", created_at=NOW + timedelta(minutes=10)))
    await seed(
        settings,
        **deploy(**later, env_id="prod", status="failed", created_at=NOW + timedelta(minutes=15)),
    )
    signed_in(Role.engineer)
    assert "action-rollback" not in (await client.get(f"/tasks/{undone}")).text
    assert "action-rollback" in (await client.get(f"/tasks/{kept}")).text
    history = (await client.get("/dashboards/3?env_id=ss-dev")).text.split('id="history"', 1)[1]
    rows = {
        row.split('href="/tasks/', 1)[1][:32]: row
        for row in history.split("<tr")
        if 'href="/tasks/' in row
    }
    assert "action-rollback" not in rows[undone]
    assert "action-rollback" in rows[kept]
    # The API says which rollback undid it, for the agent page's task lines and other clients.
    listed = {task["id"]: task for task in (await client.get("/api/tasks")).json()}
    assert listed[undone]["undone_by"] is not None
    assert (
        listed[undone]["undone_by"]
        == (await client.get(f"/api/tasks/{undone}")).json()["undone_by"]
    )
    assert listed[kept]["undone_by"] is None


async def test_an_unknown_task_is_the_human_404(
    client: httpx.AsyncClient, signed_in: Callable[[Role], None]
) -> None:
    signed_in(Role.analyst)
    missing = await client.get("/tasks/0123456789abcdef", headers={"Accept": "text/html"})
    assert missing.status_code == 404
    assert "Не найдено" in missing.text
    assert "Задачи 01234567 нет" in missing.text
    bad = await client.get("/tasks/not-an-id", headers={"Accept": "text/html"})
    assert bad.status_code == 422


async def test_the_dashboard_page_has_its_history_by_uuid_and_superset_links(
    client: httpx.AsyncClient,
    settings: Settings,
    fake_superset: FakeSuperset,
    signed_in: Callable[[Role], None],
) -> None:
    # Its title changed since: the history matches by UUID, not by the title the task kept.
    fake_superset.dashboards = [{"id": 3, "dashboard_title": "Новое имя", "published": True}]
    mine = await seed(settings, **deploy(env_id="prod", source="ss-dev", objects=["Старое имя"]))
    other = await seed(settings, **deploy(object_keys=[f"dashboard:{uuid4()}"]))
    validation = await seed(
        settings, **deploy(kind="validation", object_keys=[f"validation:{DASHBOARD_UUID}"])
    )
    signed_in(Role.engineer)
    page = await client.get("/dashboards/3?env_id=ss-dev")
    assert page.status_code == 200
    history = page.text.split('id="history"', 1)[1]
    assert f'href="/tasks/{mine}"' in history
    assert other not in history
    assert validation not in history
    assert 'class="action-rollback"' in history
    words = " ".join(text_of(history).split())
    assert (
        f"выкатка {mine[:8]} 30 ноября 2026, 09:15 engineer Dev Разработка Prod Продуктив выполнена"
        in words
    )
    assert RAW_ID.findall(text_of(page.text)) == []
    assert 'href="http://superset.test/superset/dashboard/3/"' in page.text

    dataset = await client.get("/datasets/1?env_id=ss-dev")
    [link] = re.findall(r'class="button open-superset" href="([^"]+)"', dataset.text)
    assert html.unescape(link) == (
        "http://superset.test/explore/?datasource_type=table&datasource_id=1"
    )


@pytest.fixture
async def healthy(
    settings: Settings, fake_superset: FakeSuperset, token_for: Callable[[Role], str]
) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(settings, AnswersHealth(fake_superset)) as client:
        client.cookies.set("sstools_session", token_for(Role.analyst))
        yield client


async def test_the_home_page_says_which_environment_answers_and_the_failed_tasks_first(
    healthy: httpx.AsyncClient, settings: Settings
) -> None:
    client = healthy
    await seed(settings, **deploy(created_at=NOW + timedelta(minutes=5)))
    failed = await seed(
        settings,
        **deploy(status="failed", result=None, error=f"импорт не удался: задача {uuid4().hex}"),
    )
    began = time.perf_counter()
    page = await client.get("/")
    assert time.perf_counter() - began < 3  # the stopped one is given 1.5 s, not 30
    assert page.status_code == 200  # prod does not answer: said, not a 500
    assert re.search(r'data-env-id="ss-dev" data-reachable="true"', page.text)
    assert re.search(r'data-env-id="prod" data-reachable="false"', page.text)
    words = " ".join(text_of(page.text).split())
    assert "Prod Продуктив · ✗ недоступно" in words
    assert (
        words.index("Завершились ошибкой")
        < words.index(failed[:8])
        < words.index("Последние задачи")
    )
    assert RAW_ID.findall(words) == []


async def test_settings_name_the_model_and_each_environment_with_its_address(
    healthy: httpx.AsyncClient,
) -> None:
    words = " ".join(text_of((await healthy.get("/settings")).text).split())
    assert "Языковая модель без языковой модели" in words
    assert "http://superset.test · ✓ доступно" in words
    assert "http://127.0.0.1:9 · ✗ недоступно" in words


def test_a_task_from_a_commit_names_a_commit_and_one_from_a_branch_a_branch() -> None:
    nowhere = EnvironmentRegistry([])
    commit = "9a8b7c6d5e4f30211e2d3c4b5a69788796a5b4c3"
    assert source_place(f"git:{commit}", nowhere) == Place("git, коммит 9a8b7c6d")
    assert source_place("git:release-2026", nowhere) == Place("git, ветка release-2026")
