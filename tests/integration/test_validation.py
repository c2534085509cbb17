"""Validation and documentation of dashboards on the real sandbox, as durable tasks.

Everything runs against ss-dev, which these tests only read (the one chart they break is their
own, uniquely named, and deleted afterwards); git writes go to the session's own repository.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.domain.documentation import SECTIONS
from sstools.sandbox.seed import BROKEN_DATASET
from sstools.testing import LiveServer
from tests.conftest import AuthHeaders
from tests.integration.conftest import ARCHIVE, ENV, HEALTHY, dashboard_id
from tests.integration.deploy_support import Superset, wait_for_task
from tests.openai_server import OpenAIScript, ScriptedOpenAI

ARCHIVE_CHART = "Тарифы (устаревшие)"


async def run(
    api: httpx.AsyncClient, auth: AuthHeaders, dashboard: int, action: str = "validate"
) -> dict[str, Any]:
    started = await api.post(
        f"/api/dashboards/{dashboard}/{action}", params={"env_id": ENV}, headers=auth(Role.analyst)
    )
    assert started.status_code == 202, started.text
    assert started.json()["kind"] in ("validation", "documentation")
    task = await wait_for_task(api, auth, started.json()["id"])
    assert task["status"] == "succeeded", task["error"]
    result: dict[str, Any] = task["result"]
    return result


def of_kind(report: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [one for one in report["findings"] if one["kind"] == kind]


async def test_validation_of_the_archive_reports_its_orphan_chart_and_health_shows_the_run(
    client: httpx.AsyncClient, auth: AuthHeaders, token_for: Callable[[Role], str]
) -> None:
    archive = await dashboard_id(client, auth, ARCHIVE)
    before = (
        await client.get(
            f"/api/dashboards/{archive}/health", params={"env_id": ENV}, headers=auth(Role.analyst)
        )
    ).json()

    report = await run(client, auth, archive)

    missing = of_kind(report, "missing_dataset")
    assert [(one["object_name"], one["severity"]) for one in missing] == [(ARCHIVE_CHART, "error")]
    assert missing[0]["fix"]
    assert report["counts"]["error"] >= 1
    assert report["review"] == "модель не настроена: только автоматические проверки"
    health = (
        await client.get(
            f"/api/dashboards/{archive}/health", params={"env_id": ENV}, headers=auth(Role.analyst)
        )
    ).json()
    assert health["validation"]["task_id"] == report["task_id"]
    assert health["validation"]["errors"] == report["counts"]["error"]
    assert health["last_validation"].startswith("последняя проверка: ")
    assert health["last_validation"] != before["last_validation"]
    problems = report["counts"]["error"] + report["counts"]["warning"]
    assert f"{problems} проблем" in health["last_validation"]
    assert "Последняя проверка: " in health["summary"]
    assert "T" not in health["last_validation"].split(": ", 1)[1]  # a date people read, not ISO
    stored = await client.get(
        f"/api/dashboards/{archive}/validation", params={"env_id": ENV}, headers=auth(Role.analyst)
    )
    assert stored.status_code == 200
    assert stored.json()["findings"] == report["findings"]
    page = await client.get(
        f"/dashboards/{archive}",
        params={"env_id": ENV},
        headers={"Cookie": f"sstools_session={token_for(Role.analyst)}"},
    )
    assert page.status_code == 200
    assert health["last_validation"].split(": ", 1)[1] in page.text  # beside its label


async def test_validation_of_a_healthy_dashboard_reports_no_error(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    report = await run(client, auth, await dashboard_id(client, auth, HEALTHY))

    assert [one for one in report["findings"] if one["severity"] == "error"] == []
    assert report["counts"]["error"] == 0
    assert of_kind(report, "query_failed") == []
    # Notes are not problems: the seed's charts have no descriptions, and that is all.
    assert {one["kind"] for one in report["findings"]} <= {"no_description"}
    assert report["counts"]["warning"] == 0


@pytest.fixture
async def broken_chart(superset: Superset) -> AsyncIterator[tuple[int, str]]:
    """A new dashboard with one chart grouping by a column its dataset does not have."""
    dev = superset(ENV)
    tag = uuid.uuid4().hex[:8]
    datasets = await dev.list_all("dataset", columns=["id", "table_name"])
    dataset = next(row["id"] for row in datasets if row["table_name"] == "energy_consumption")
    board = await dev.post_json(
        "/api/v1/dashboard/", {"dashboard_title": f"validation test {tag}", "published": True}
    )
    params = {
        "viz_type": "table",
        "datasource": f"{dataset}__table",
        "query_mode": "aggregate",
        "groupby": ["no_such_column"],
        "metrics": ["count"],
    }
    chart = await dev.post_json(
        "/api/v1/chart/",
        {
            "slice_name": f"broken query {tag}",
            "viz_type": "table",
            "datasource_id": dataset,
            "datasource_type": "table",
            "params": json.dumps(params),
            "dashboards": [board["id"]],
        },
    )
    try:
        yield int(board["id"]), f"broken query {tag}"
    finally:
        await dev.delete(f"/api/v1/chart/{chart['id']}")
        await dev.delete(f"/api/v1/dashboard/{board['id']}")


async def test_a_chart_whose_query_fails_in_superset_is_an_error(
    client: httpx.AsyncClient, auth: AuthHeaders, broken_chart: tuple[int, str]
) -> None:
    board, chart = broken_chart

    report = await run(client, auth, board)

    failed = of_kind(report, "query_failed")
    assert [(one["object_name"], one["severity"]) for one in failed] == [(chart, "error")]
    assert "no_such_column" in failed[0]["message"]
    assert of_kind(report, "missing_dataset") == []


async def test_documentation_without_a_model_has_every_section_and_every_chart(
    client: httpx.AsyncClient, auth: AuthHeaders, superset: Superset
) -> None:
    board = await dashboard_id(client, auth, HEALTHY)
    charts = await superset(ENV).get_json(f"/api/v1/dashboard/{board}/charts")
    names = [chart["slice_name"] for chart in charts["result"]]

    result = await run(client, auth, board, "document")

    got = await client.get(
        f"/api/dashboards/{board}/documentation",
        params={"env_id": ENV},
        headers=auth(Role.analyst),
    )
    assert got.status_code == 200, got.text
    document = got.json()
    markdown = document["markdown"]
    assert document["author"] == "template"
    assert document["task_id"] == result["task_id"]
    for title in SECTIONS:
        assert f"\n## {title}\n" in markdown
    assert len(names) == 3
    for name in names:
        assert name in markdown
    assert "energy_consumption" in markdown  # charts with their dataset
    assert "SUM(consumption_mwh)" in markdown  # … and metrics
    assert "ss-dev" in markdown
    assert "prod" in markdown
    # Where it would go; an analyst started it, so it is stored, not committed (see
    # test_documentation_commit.py for an engineer's commit).
    assert document["git_path"] == f"docs/{document['dashboard_uuid']}.md"
    assert (document["committed"], document["git_commit"]) == (False, None)


async def test_documentation_before_any_run_is_a_404_naming_the_dashboard(
    client: httpx.AsyncClient, auth: AuthHeaders
) -> None:
    archive = await dashboard_id(client, auth, ARCHIVE)
    got = await client.get(
        f"/api/dashboards/{archive}/documentation",
        params={"env_id": "staging"},
        headers=auth(Role.analyst),
    )
    assert got.status_code == 404
    assert str(archive) in got.json()["detail"]
    assert "staging" in got.json()["detail"]


# -- with a model ------------------------------------------------------------------------------


def _review(findings: Any) -> OpenAIScript:
    def script(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {"text": findings if isinstance(findings, str) else json.dumps(findings)}

    return script


async def _with_model(
    settings: Settings, auth: AuthHeaders, script: OpenAIScript, action: str
) -> tuple[dict[str, Any], ScriptedOpenAI]:
    llm = ScriptedOpenAI(script)
    with LiveServer(llm.app) as server:
        with_model = settings.model_copy(
            update={
                "llm_base_url": f"{server.url}/v1",
                "llm_model": "scripted",
                "llm_api_key": SecretStr("sk-test"),
            }
        )
        with LiveServer(create_app(with_model)) as app_server:
            async with httpx.AsyncClient(base_url=app_server.url, timeout=60) as api:
                board = await dashboard_id(api, auth, ARCHIVE if action == "validate" else HEALTHY)
                return await run(api, auth, board, action), llm


async def test_the_models_review_is_added_as_review_findings(
    settings: Settings, auth: AuthHeaders
) -> None:
    answer = {
        "findings": [
            {
                "severity": "warning",
                "object_type": "dashboard",
                "object_name": ARCHIVE,
                "message": "архивный дашборд с одним графиком",
                "fix": "удалите дашборд или перенесите график",
            }
        ]
    }
    report, llm = await _with_model(settings, auth, _review(answer), "validate")

    review = of_kind(report, "review")
    assert [(one["object_name"], one["severity"]) for one in review] == [(ARCHIVE, "warning")]
    assert review[0]["object_id"] is not None
    assert of_kind(report, "missing_dataset")  # the deterministic ones stay
    assert report["review"] == "проверка моделью выполнена"
    prompt = llm.requests[0]["messages"][-1]["content"]
    assert ARCHIVE_CHART in prompt
    assert BROKEN_DATASET not in prompt.replace(ARCHIVE_CHART, "")


@pytest.mark.parametrize(
    "answer",
    [
        "Дашборд выглядит хорошо!",  # prose, not JSON
        {
            "findings": [
                {
                    "severity": "fatal",
                    "object_type": "chart",
                    "object_name": "x",
                    "message": "m",
                    "fix": "f",
                }
            ]
        },
    ],
)
async def test_a_model_answer_that_does_not_validate_keeps_the_deterministic_findings(
    settings: Settings, auth: AuthHeaders, answer: Any
) -> None:
    report, _ = await _with_model(settings, auth, _review(answer), "validate")

    assert of_kind(report, "review") == []
    assert [one["object_name"] for one in of_kind(report, "missing_dataset")] == [ARCHIVE_CHART]
    assert report["review"].startswith("модель не ответила пригодно")


async def test_a_model_that_fails_leaves_the_deterministic_findings(
    settings: Settings, auth: AuthHeaders
) -> None:
    def refuse(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {"status": 500, "body": {"error": {"message": "overloaded"}}}

    report, _ = await _with_model(settings, auth, refuse, "validate")

    assert [one["object_name"] for one in of_kind(report, "missing_dataset")] == [ARCHIVE_CHART]
    assert report["review"].startswith("модель не ответила пригодно")


async def test_documentation_by_the_model_is_kept_only_with_every_section(
    settings: Settings, auth: AuthHeaders
) -> None:
    def write(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        facts = json.loads(messages[-1]["content"])
        charts = [chart["name"] for chart in facts["dashboard"]["charts"]]
        body = "\n\n".join(f"## {title}\n\nТекст модели: {', '.join(charts)}" for title in SECTIONS)
        return {"text": f"```markdown\n# {HEALTHY}\n\n{body}\n```"}

    def partial(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        return {"text": f"# {HEALTHY}\n\n## Назначение\n\nКоротко."}

    by_model, _ = await _with_model(settings, auth, write, "document")
    fallback, _ = await _with_model(settings, auth, partial, "document")

    assert by_model["author"] == "model"
    assert "Текст модели" in by_model["markdown"]
    assert "```" not in by_model["markdown"]
    assert fallback["author"] == "template"
    assert "нет разделов" in fallback["model_error"]
    for title in SECTIONS:
        assert f"## {title}" in fallback["markdown"]
