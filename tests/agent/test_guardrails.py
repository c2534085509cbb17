"""AGGRD-FR-001/002: risk depends on the tool's kind and the target's configured stage."""

from __future__ import annotations

import pytest

from sstools.agent import explain
from sstools.agent.card import impact
from sstools.agent.card.arguments import card_arguments
from sstools.agent.card.impact import NoCard
from sstools.agent.card.plan import PlanView
from sstools.agent.guardrails import RiskLevel, Tone, decide
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.environments import EnvironmentRegistry, Stage
from sstools.texts import deploy as deploy_texts
from tests.agent.conftest import ENVS


def impact_text(answer: object) -> str:
    """The impact line of a plan answer, read as the card reads it (decoded once)."""
    return impact.impact_text(PlanView.of(answer))


def no_card_because(answer: object) -> NoCard | None:
    return impact.no_card_because(PlanView.of(answer))


def _decide(tool: str, args: dict[str, object], env: str | None, confirm_reads: bool = False):  # type: ignore[no-untyped-def]
    spec = CATALOGUE[tool]
    return decide(
        spec, spec.args_model.model_validate(args), env, ENVS, confirm_reads=confirm_reads
    )


def test_aggrd_fr_001_deploy_to_prod_is_dangerous_and_loud() -> None:
    decision = _decide("deploy_dashboard", {"target_env_id": "prod"}, "prod")
    assert (decision.level, decision.tone, decision.stage) == (
        RiskLevel.dangerous,
        Tone.destructive,
        Stage.prod,
    )
    assert decision.prompt.startswith("⚠️ ПРОДУКТИВ")
    assert decision.needs_confirmation


@pytest.mark.parametrize(("env", "stage"), [("ss-dev", "dev"), ("staging", "staging")])
def test_aggrd_fr_001_same_tool_to_dev_or_staging_is_calm(env: str, stage: str) -> None:
    decision = _decide("deploy_dashboard", {"target_env_id": env}, env)
    assert (decision.level, decision.tone) == (RiskLevel.guarded, Tone.info)
    assert decision.prompt.startswith(f"Изменения в {stage}-окружении")
    assert "⚠️" not in decision.prompt


def test_git_write_without_environment_is_a_warning() -> None:
    decision = _decide("create_branch", {"name": "feature/x"}, None)
    assert (decision.level, decision.tone) == (RiskLevel.guarded, Tone.warning)


def test_dml_sql_in_prod_is_dangerous_but_select_is_safe() -> None:
    dml = _decide("superset_execute_sql", {"sql": "delete from t", "database_id": 1}, "prod")
    assert dml.level is RiskLevel.dangerous
    assert dml.kind == "write"
    select = _decide("superset_execute_sql", {"sql": "select 1", "database_id": 1}, "prod")
    assert select.level is RiskLevel.safe
    assert not select.needs_confirmation


def test_backup_is_dangerous_even_in_dev() -> None:
    assert _decide("run_backup", {}, "ss-dev").tone is Tone.destructive


def test_story2_acceptance3_reads_get_a_green_card_only_when_hitl_confirms_reads() -> None:
    calm = _decide("search_dashboards", {}, "prod")
    assert not calm.needs_confirmation
    card = _decide("search_dashboards", {}, "prod", confirm_reads=True)
    assert card.needs_confirmation
    assert (card.level, card.tone, card.prompt) == (RiskLevel.safe, Tone.success, "Чтение данных")


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (1, "1 дашборд будет изменён"),
        (3, "3 дашборда будут изменены"),
        (5, "5 дашбордов будут изменены"),
        (11, "11 дашбордов будут изменены"),
        (22, "22 дашборда будут изменены"),
        (0, "изменений нет: ни один дашборд не изменится"),
    ],
)
def test_impact_scope_in_russian(count: int, text: str) -> None:
    assert impact_text({"dashboards_changed": count}) == text


def _plan(changed: int, *actions: str) -> dict[str, object]:
    objects = [{"kind": "dashboard", "name": f"d{n}", "action": a} for n, a in enumerate(actions)]
    return {"dashboards_changed": changed, "objects": objects, "digest": "d" * 64}


def test_a_dashboard_the_plan_creates_reads_created_not_changed() -> None:
    assert impact_text(_plan(1, "create")) == "1 дашборд будет создан"
    assert impact_text(_plan(3, "create", "update", "unchanged")) == (
        "1 дашборд будет создан, 2 дашборда будут изменены"  # one changed through its charts
    )
    # A rollback counts the dashboards it deletes among the changed ones.
    assert impact_text(_plan(3, "update", "delete", "delete")) == (
        "1 дашборд будет изменён, 2 дашборда будут удалены"
    )


def test_only_a_plan_that_can_succeed_and_changes_something_gets_a_card() -> None:
    assert no_card_because(None) == "no_plan"
    assert no_card_because({**_plan(1, "update"), "applicable": False}) == "not_applicable"
    assert no_card_because(_plan(0, "unchanged", "unchanged")) == "changes_nothing"
    assert no_card_because({"status": 200}) == "no_plan"  # an answer that is not a plan
    chart_only = {**_plan(0), "objects": [{"kind": "chart", "action": "update"}]}
    assert no_card_because(chart_only) is None  # a chart changes: something to approve
    assert no_card_because(_plan(1, "create")) is None


def test_impact_is_honest_when_preview_is_unavailable() -> None:
    assert impact_text(None) == "оценка влияния недоступна"


def test_the_card_says_which_charts_the_import_takes_off_the_target_dashboard() -> None:
    plan = _plan(1, "update") | {
        "unresolved_charts": [
            {"name": "Тарифы (устаревшие)", "removed_from_target": True},
            {"name": "Черновик", "removed_from_target": False},
        ]
    }
    assert impact_text(plan) == "1 дашборд будет изменён; 1 график будет убран с дашборда"


def test_a_rollback_card_names_the_task_by_the_digits_people_quote() -> None:
    tool = CATALOGUE["rollback_deploy"]
    args = tool.args_model.model_validate({"task_id": "3f9c2b7e" + "0" * 24, "env_id": "prod"})
    shown = card_arguments(tool, args, CallScope(env_id="prod"), None, EnvironmentRegistry([]))
    assert ("Задача", "3f9c2b7e") in [(one.label, one.value) for one in shown]


def test_a_plan_that_changes_nothing_says_so_once() -> None:
    summary = deploy_texts.plan_summary([], 2, "prod", [])
    assert explain.plan_changes_nothing("Выкатка дашборда", summary) == (
        "«Выкатка дашборда»: подтверждать нечего. Изменений нет: 2 дашборда совпадают с prod."
    )
    quiet = explain.plan_changes_nothing("Откат", "Откат задачи 3f9c2b7e (запустил ann)")
    assert (
        quiet
        == "«Откат»: подтверждать нечего — изменений нет. Откат задачи 3f9c2b7e (запустил ann)."
    )
