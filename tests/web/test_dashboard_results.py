"""The dashboard page's results without a browser: «Проверка» lists the latest validation's
findings in words (or says none ran and offers one), «Документация» shows the latest document
as text — a hostile one included, nothing of it HTML —, and «История выкаток» lists tasks from
before ``tasks.object_keys`` (their keys NULL) by what they recorded."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit
from uuid import NAMESPACE_URL, uuid4, uuid5

import httpx
import pytest
from sqlalchemy import text

from sstools.agent.offline.intent import intents
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.storage.db import create_engine
from sstools.storage.models import DashboardDocument, DashboardValidation
from sstools.testing.fake_superset import FakeSuperset
from sstools.web._document import parse
from sstools.web.strings import UI
from tests.rig import store_rows, task_record, words_of

NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
DASHBOARD_UUID = str(uuid5(NAMESPACE_URL, "3"))  # the fake's UUID of dashboard 3
RAW_ID = re.compile(r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
HOSTILE = """# Отчёт

## Назначение

Показывает расход. <script>alert('doc')</script> и <img src=x onerror="alert('img')">
[нажми](javascript:alert('link')) и **важно**, `код`.

## Графики

| График | Тип |
|---|---|
| Расход <b onmouseover=alert(1)>x</b> | table |

```
</pre><script>alert('fence')</script>
```
"""


def panel(page: str, name: str) -> str:
    return page.split(f'id="{name}"', 1)[1].split("</section>", 1)[0]


def finding(severity: str, object_type: str, object_id: int | None, name: str) -> dict[str, Any]:
    return {
        "kind": "missing_dataset" if severity == "error" else "no_description",
        "severity": severity,
        "object_type": object_type,
        "object_id": object_id,
        "object_name": name,
        "message": f"сообщение про {name}",
        "fix": f"исправьте {name}",
    }


def validation(task_id: str, findings: list[dict[str, Any]], **fields: Any) -> DashboardValidation:
    values: dict[str, Any] = {
        "env_id": "ss-dev",
        "dashboard_id": 3,
        "dashboard_uuid": DASHBOARD_UUID,
        "title": "Отчёт",
        "task_id": task_id,
        "review": "модель не настроена: только автоматические проверки",
        "findings": findings,
        "created_at": NOW,
    }
    return DashboardValidation(**(values | fields))


@pytest.fixture
def page_of(
    client: httpx.AsyncClient, fake_superset: FakeSuperset, token_for: Callable[[Role], str]
) -> Callable[[], Any]:
    fake_superset.dashboards = [{"id": 3, "dashboard_title": "Отчёт", "published": True}]
    client.cookies.set("sstools_session", token_for(Role.analyst))

    async def get() -> str:
        page = await client.get("/dashboards/3?env_id=ss-dev")
        assert page.status_code == 200, page.text
        return page.text

    return get


def agent_prompt(section: str, action: str) -> dict[str, list[str]]:
    [link] = re.findall(rf'class="{action}" href="([^"]+)"', section)
    assert urlsplit(html.unescape(link)).path == "/agent"
    return parse_qs(urlsplit(html.unescape(link)).query)


async def test_no_validation_yet_is_said_and_offers_to_run_one(page_of: Any) -> None:
    section = panel(await page_of(), "validation")
    assert "Проверка" in words_of(section)
    assert "Этот дашборд в окружении «Dev» ещё не проверяли." in words_of(section)
    query = agent_prompt(section, "action-validate")
    assert query["prompt"] == ["Проверь этот дашборд на ошибки"]
    assert query["objectType"] == ["dashboard"]
    assert query["objectId"] == ["3"]
    assert query["envId"] == ["ss-dev"]


async def test_the_latest_validation_lists_each_finding_errors_first(
    page_of: Any, settings: Settings
) -> None:
    older = validation(
        uuid4().hex, [finding("error", "chart", 7, "Старый")], created_at=NOW - timedelta(days=1)
    )
    latest_task = uuid4().hex
    latest = validation(
        latest_task,
        [
            finding("info", "chart", 5, "Расход"),
            finding("error", "chart", 9, "Тарифы (устаревшие)"),
            finding("warning", "dataset", 4, "tariffs"),
        ],
    )
    other_env = validation(uuid4().hex, [finding("error", "chart", 1, "Чужой")], env_id="prod")
    await store_rows(settings, older, latest, other_env)

    page = await page_of()
    section = panel(page, "validation")
    words = words_of(section)
    assert "30 ноября 2026, 09:15" in words
    assert "ошибок: 1, предупреждений: 1, заметок: 1" in words
    assert "Ревью: модель не настроена: только автоматические проверки" in words
    assert (
        "ошибка график «Тарифы (устаревшие)» ↗ : сообщение про Тарифы (устаревшие) "
        "Что сделать: исправьте Тарифы (устаревшие)"
    ) in words
    # Errors, then warnings, then notes: what to fix first comes first.
    assert words.index("ошибка график") < words.index("предупреждение датасет «tariffs»")
    assert words.index("предупреждение датасет") < words.index("заметка график «Расход»")
    assert "Старый" not in words  # the latest here, not an older one
    assert "Чужой" not in words  # nor another environment's
    assert 'href="/datasets/4?env_id=ss-dev"' in section
    assert 'href="http://superset.test/explore/?slice_id=9"' in section
    assert f'href="/tasks/{latest_task}"' in section
    assert agent_prompt(section, "action-validate")["prompt"] == ["Проверь этот дашборд на ошибки"]
    assert RAW_ID.findall(words_of(page)) == []


async def test_a_clean_validation_says_so(page_of: Any, settings: Settings) -> None:
    await store_rows(settings, validation(uuid4().hex, []))
    words = words_of(panel(await page_of(), "validation"))
    assert "Проблем не найдено" in words
    assert "ошибок: 0, предупреждений: 0, заметок: 0" in words


async def test_no_document_yet_is_said_and_offers_to_ask_for_one(page_of: Any) -> None:
    section = panel(await page_of(), "documentation")
    assert "Документации этого дашборда в окружении «Dev» пока нет." in words_of(section)
    query = agent_prompt(section, "action-document")
    assert query["prompt"] == ["Напиши документацию этого дашборда"]
    assert query["objectId"] == ["3"]


async def test_a_hostile_document_is_shown_as_text_never_as_html(
    page_of: Any, settings: Settings
) -> None:
    await store_rows(
        settings,
        DashboardDocument(
            env_id="ss-dev",
            dashboard_id=3,
            dashboard_uuid=DASHBOARD_UUID,
            task_id=uuid4().hex,
            author="model",
            markdown=HOSTILE,
            git_path=f"docs/{DASHBOARD_UUID}.md",
            git_commit="abcdef1234567890",
            created_at=NOW,
        ),
    )
    page = await page_of()
    section = panel(page, "documentation")
    # Structure, from the Markdown: headings, a table, strong and code spans.
    assert "<h4>Назначение</h4>" in section
    assert "<th>График</th>" in section
    assert "<strong>важно</strong>" in section
    assert "<code>код</code>" in section
    # Everything else is text: the tags are escaped, the link keeps its words only.
    for tag in ("<script", "<img", "<b ", "</pre><script"):
        assert tag not in section, tag
    assert "&lt;script&gt;alert(&#39;doc&#39;)&lt;/script&gt;" in section
    assert "javascript:" not in section
    assert "onerror=" not in section.replace("onerror=&#34;", "")  # only as escaped text
    words = words_of(section)
    assert "<img src=x onerror=\"alert('img')\">" in words  # a person sees what was written
    assert "нажми" in words
    assert "написана моделью · 30 ноября 2026, 09:15 · в git, коммит abcdef1" in words
    assert RAW_ID.findall(words_of(page)) == []


def test_the_document_parser_keeps_only_plain_text_in_its_spans() -> None:
    document = parse(HOSTILE)
    kinds = [block.kind for block in document.blocks]
    assert kinds == ["heading", "heading", "paragraph", "heading", "table", "code"]
    table = document.blocks[4]
    assert [[span.text for span in cell] for cell in table.header] == [["График"], ["Тип"]]
    assert table.rows[0][0][0].text == "Расход <b onmouseover=alert(1)>x</b>"
    assert parse("| a \\| b | c |\n|---|---|\n| 1 | 2 |").blocks[0].header[0][0].text == "a | b"
    assert not document.cut
    assert parse("x" * 70_000).cut


async def seed_task(settings: Settings, **fields: Any) -> str:
    """A task as recorded before migration 0006: its ``object_keys`` NULL."""
    values: dict[str, Any] = {
        "workflow": "apply_plan",
        "source": "prod",
        "created_at": NOW,
        "finished_at": NOW + timedelta(seconds=20),
    }
    record = task_record(**(values | fields))
    task_id = record.id
    await store_rows(settings, record)
    engine = create_engine(settings.database_url)
    async with engine.begin() as connection:
        await connection.execute(
            text("UPDATE tasks SET object_keys = NULL WHERE id = :id"), {"id": task_id}
        )
    await engine.dispose()
    return task_id


async def test_the_history_lists_tasks_from_before_object_keys(
    page_of: Any, settings: Settings
) -> None:
    # Its title has changed since; its snapshot names the dashboard's UUID.
    by_uuid = await seed_task(
        settings,
        objects=["Старое имя"],
        env_id="prod",
        source="ss-dev",
        result={
            "imported": ["Старое имя"],
            "not_imported": [],
            "snapshot": {"branch": "b", "commit": "c" * 40, "dashboards": [DASHBOARD_UUID]},
        },
        created_at=NOW - timedelta(hours=2),
    )
    # Written into this environment under the title the dashboard has here.
    by_title = await seed_task(settings, objects=["Отчёт"], result={"imported": ["Отчёт"]})
    another = await seed_task(settings, objects=["Другой"], result={"imported": ["Другой"]})
    elsewhere = await seed_task(settings, objects=["Отчёт"], env_id="qa", source="qa")
    not_a_deploy = await seed_task(settings, kind="validation", objects=["Отчёт"])

    history = panel(await page_of(), "history")
    assert f'href="/tasks/{by_uuid}"' in history
    assert f'href="/tasks/{by_title}"' in history
    assert history.index(by_title) < history.index(by_uuid)  # newest first
    for absent in (another, elsewhere, not_a_deploy):
        assert absent not in history
    words = words_of(history)
    assert "Этот дашборд ещё не выкатывали" not in words
    assert (
        f"выкатка {by_title[:8]} 30 ноября 2026, 09:15 engineer Prod Продуктив Dev Разработка"
        in words
    )


def test_the_panels_prompts_are_understood_without_a_model() -> None:
    # «Проверить…» and «Попросить агента написать…» prefill these: the offline planner reads them.
    assert intents(UI["prompt_validate"]) == ["validation"]
    assert intents(UI["prompt_document"]) == ["documentation"]
