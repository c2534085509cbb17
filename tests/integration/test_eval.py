"""`sstools eval` on the real sandbox: the shipped acceptance scenarios pass with the offline
planner, a wrong expectation and a forbidden tool are failures, and the operator's data is never
touched."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from sstools.auth.roles import Role
from sstools.cli import app as cli_app
from sstools.config import Settings
from sstools.evaluation.report import Report, Status
from sstools.evaluation.runner import Target, in_process, model_name, run_scenarios
from sstools.evaluation.scenarios import load_scenarios, parse_scenarios
from sstools.sandbox import Sandbox
from sstools.testing import LiveServer
from tests.openai_server import ScriptedOpenAI

# The shipped scenarios the offline planner answers (the ones it cannot are listed in
# docs/evaluation.md); a subset that covers each kind, an earlier turn, a denied prod write and
# the exact tool sets, kept short.
OFFLINE_SUBSET = [
    "s1-a1-dashboard-status",
    "s1-a3-dashboard-tools",
    "s1-a5-new-object-no-stale-context",
    "s2-a1-prod-deploy-card",
    "s3-a1-analyst-gets-no-write-tools",
]
REPORT = "Отчёт по энергопотреблению"
DASHBOARD_10 = f"{{objectType: dashboard, objectId: '10', objectName: {REPORT}, envId: ss-dev}}"


@pytest.fixture(scope="module")
async def offline(settings: Settings) -> AsyncIterator[Target]:
    """One in-process app with the offline planner for the module (each start costs seconds)."""
    async with in_process(settings) as target:
        yield target


async def _run(target: Target, text: str, model: str = "offline planner") -> Report:
    scenarios = parse_scenarios(text, "test").scenarios
    return await run_scenarios(target, scenarios, model=model)


def _by_id(report: Report) -> dict[str, Any]:
    return {result.id: result for result in report.results}


async def test_the_shipped_scenarios_pass_with_the_offline_planner(offline: Target) -> None:
    chosen = [s for s in load_scenarios().scenarios if s.id in OFFLINE_SUBSET]
    report = await run_scenarios(offline, chosen, model="offline planner")
    failures = {r.id: r.reasons for r in report.results if r.status is not Status.passed}
    assert not failures
    assert [r.id for r in report.results] == OFFLINE_SUBSET
    assert report.overall.passed == report.overall.total == len(OFFLINE_SUBSET)
    assert {row.kind: row.accuracy for row in report.kinds} == {
        "context": 1.0,
        "guardrails": 1.0,
        "tools": 1.0,
    }
    results = _by_id(report)
    assert results["s2-a1-prod-deploy-card"].tools_called == ["deploy_dashboard"]
    assert "Операция отменена" in results["s2-a1-prod-deploy-card"].answer  # denied, not run
    assert "Energy KPIs" in results["s1-a5-new-object-no-stale-context"].answer


async def test_wrong_expectations_are_reported_as_failures(offline: Target) -> None:
    report = await _run(
        offline,
        f"""
scenarios:
  - id: right
    kind: right-kind
    role: analyst
    context: {DASHBOARD_10}
    message: какой статус у этого дашборда?
    expect:
      tools: {{any_of: [get_health_summary]}}
      answer_contains: [{REPORT}]
  - id: wrong
    kind: wrong-kind
    role: analyst
    context: {DASHBOARD_10}
    message: какой статус у этого дашборда?
    expect:
      tools: {{any_of: [superset_execute_sql]}}
      offered: {{includes: [deploy_dashboard]}}
      confirmation: required
      answer_contains: [[Executive Summary, Customer Revenue]]
""",
    )
    results = _by_id(report)
    assert results["right"].status is Status.passed
    assert results["wrong"].status is Status.failed
    assert results["wrong"].reasons == [
        "not offered: deploy_dashboard",
        "expected a call to one of superset_execute_sql; called get_health_summary",
        "expected a confirmation card, none came",
        "answer lacks 'Executive Summary' or 'Customer Revenue'",
    ]
    assert [(row.kind, row.passed, row.total) for row in report.kinds] == [
        ("right-kind", 1, 1),
        ("wrong-kind", 0, 1),
    ]
    assert report.overall.accuracy == 0.5


def _always_health_summary(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    if messages[-1]["role"] == "tool":
        return {"text": f"«{REPORT}» в ss-dev: в порядке."}
    return {"tool_calls": [("get_health_summary", {})]}


async def test_a_model_calling_a_forbidden_tool_fails_its_scenario(settings: Settings) -> None:
    llm = ScriptedOpenAI(_always_health_summary)
    with LiveServer(llm.app) as llm_server:
        with_model = settings.model_copy(
            update={
                "llm_base_url": f"{llm_server.url}/v1",
                "llm_model": "scripted",
                "llm_api_key": SecretStr("sk-eval-secret"),
            }
        )
        async with in_process(with_model) as target:
            report = await _run(
                target,
                f"""
scenarios:
  - id: forbidden
    kind: tools
    role: analyst
    context: {DASHBOARD_10}
    message: проверь этот дашборд
    expect:
      forbidden_tools: [get_health_summary]
      answer_contains: [{REPORT}]
  - id: allowed
    kind: tools
    role: analyst
    context: {DASHBOARD_10}
    message: какой статус у этого дашборда?
    expect:
      tools: {{any_of: [get_health_summary]}}
      answer_contains: [{REPORT}]
""",
                model_name(with_model),
            )
    results = _by_id(report)
    assert results["forbidden"].status is Status.failed
    assert results["forbidden"].reasons == ["called forbidden get_health_summary"]
    assert results["allowed"].status is Status.passed
    assert report.model == f"scripted at {llm_server.url}/v1"
    assert "sk-eval-secret" not in report.model_dump_json()
    assert llm.requests  # the configured endpoint answered, not the offline planner


def test_the_command_reports_json_exits_1_below_the_bar_and_leaves_the_operator_alone(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    operator = tmp_path / "operator"
    operator.mkdir()
    scenarios = tmp_path / "scenarios.yaml"
    scenarios.write_text(
        f"""
scenarios:
  - id: status
    kind: context
    role: engineer
    context: {DASHBOARD_10}
    message: какой статус у этого дашборда?
    expect: {{tools: {{any_of: [get_health_summary]}}}}
  - id: wrong
    kind: context
    role: analyst
    context: {DASHBOARD_10}
    message: какой статус у этого дашборда?
    expect: {{tools: {{all_of: [run_llm_validation]}}}}
""",
        encoding="utf-8",
    )
    environ = {
        "SSTOOLS_ENVIRONMENTS_FILE": str(sandbox.settings.environments_file.resolve()),
        "SSTOOLS_DATABASE_URL": f"sqlite:///{operator / 'sstools.db'}",
        "SSTOOLS_CHECKPOINTS_FILE": str(operator / "checkpoints.db"),
        "SSTOOLS_GIT_DIR": str(operator / "git"),
        "SSTOOLS_BACKUP_DIR": str(operator / "backups"),
        "SSTOOLS_JWT_SECRET_FILE": str(operator / "jwt-secret"),
    }
    args = ["eval", "--scenarios", str(scenarios), "--json", "--min-accuracy", "0.9"]
    result = CliRunner().invoke(cli_app, args, env=environ)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [(r["id"], r["status"]) for r in report["results"]] == [
        ("status", "passed"),
        ("wrong", "failed"),
    ]
    assert report["overall"] == {"kind": "overall", "passed": 1, "total": 2, "accuracy": 0.5}
    assert report["model"].startswith("offline planner")
    assert list(operator.iterdir()) == []  # the run had a database of its own


def test_a_broken_scenario_file_is_exit_2_naming_the_problem(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios.yaml"
    scenarios.write_text(
        "scenarios:\n  - {id: x, kind: k, role: analyst, message: hi,"
        " expect: {forbidden_tools: [drop_everything]}}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(cli_app, ["eval", "--scenarios", str(scenarios)])
    assert result.exit_code == 2
    assert "unknown tools: drop_everything" in result.stderr


def test_the_shipped_file_covers_stories_1_to_3() -> None:
    scenarios = load_scenarios().scenarios
    assert {s.kind for s in scenarios} == {"context", "guardrails", "tools"}
    assert len(scenarios) >= 15


def test_against_a_running_server_roles_without_credentials_are_skipped(
    offline: Target, tmp_path: Path
) -> None:
    analyst = offline.credentials[Role.analyst]
    credentials = tmp_path / "credentials.yaml"
    password = analyst.password.get_secret_value()
    credentials.write_text(f"analyst: {{username: {analyst.username}, password: '{password}'}}\n")
    scenarios = tmp_path / "scenarios.yaml"
    scenarios.write_text(
        f"""
scenarios:
  - id: as-analyst
    kind: context
    role: analyst
    context: {DASHBOARD_10}
    message: какой статус у этого дашборда?
    expect: {{tools: {{any_of: [get_health_summary]}}, answer_contains: [{REPORT}]}}
  - id: as-engineer
    kind: context
    role: engineer
    context: {DASHBOARD_10}
    message: какой статус у этого дашборда?
    expect: {{tools: {{any_of: [get_health_summary]}}}}
""",
        encoding="utf-8",
    )
    args = ["eval", "--scenarios", str(scenarios), "--url", offline.url]
    result = CliRunner().invoke(cli_app, [*args, "--credentials", str(credentials)])
    assert result.exit_code == 0, result.output
    assert "PASS  as-analyst" in result.stdout
    assert "SKIP  as-engineer" in result.stdout
    assert "no credentials for role engineer" in result.stdout
    assert re.search(r"overall\s+1\s+1\s+100%", result.stdout)
    assert password not in result.output

    credentials.write_text(f"analyst: {{username: {analyst.username}, password: wrong}}\n")
    refused = CliRunner().invoke(cli_app, [*args, "--credentials", str(credentials)])
    assert refused.exit_code == 2
    assert "signing in as 'eval-analyst': HTTP 401" in refused.stderr
