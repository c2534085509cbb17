"""AGTL-FR-005: the invocation check, from a table — no server, no model, no database."""

from __future__ import annotations

from typing import Any

import pytest

from sstools.agent.guardrails import RiskLevel, Tone
from sstools.agent.invocation import (
    Cleared,
    NeedsConfirmation,
    Refused,
)
from sstools.auth.roles import Role
from tests.agent.conftest import DASHBOARD_PAGE, check_on_page

DASHBOARD = DASHBOARD_PAGE
DATASET_PROD = {"objectType": "dataset", "objectId": "15", "envId": "prod"}
DATASET_DEV = {"objectType": "dataset", "objectId": "15", "envId": "ss-dev"}
NO_CONTEXT: dict[str, Any] = {}


REFUSALS = [
    # (why, role, page, tool, args, words in the message, the role a denial names)
    ("unknown name", Role.admin, DASHBOARD, "drop_everything", {}, "нет", None),
    ("case look-alike", Role.admin, DASHBOARD, "Search_Dashboards", {}, "нет", None),
    ("Cyrillic look-alike", Role.admin, DASHBOARD, "sеarch_dashboards", {}, "нет", None),
    (
        "role below the tool",
        Role.analyst,
        DASHBOARD,
        "deploy_dashboard",
        {},
        "Недостаточно прав: «Выкатка дашборда» доступно роли «инженер»; у вас — «аналитик»",
        "engineer",
    ),
    (
        "admin-only tool",
        Role.engineer,
        DASHBOARD,
        "run_backup",
        {},
        "доступно роли «администратор»; у вас — «инженер»",
        "admin",
    ),
    (
        "id that is a bool",
        Role.analyst,
        DASHBOARD,
        "get_health_summary",
        {"dashboard_id": True},
        "неверные аргументы",
        None,
    ),
    (
        "missing required arg",
        Role.analyst,
        DATASET_DEV,
        "superset_execute_sql",
        {"database_id": 1},
        "sql",
        None,
    ),
    (
        "DML needs engineer",
        Role.analyst,
        DATASET_DEV,
        "superset_execute_sql",
        {"sql": "delete from t", "database_id": 1},
        # The analyst may run a SELECT: it is the data change that needs the role.
        "изменять данные через «Выполнение SQL» может роль «инженер»; читать через него вы можете",
        "engineer",
    ),
    (
        "hidden by context",
        Role.admin,
        DASHBOARD,
        "superset_execute_sql",
        {"sql": "select 1", "database_id": 1},
        "здесь недоступно",
        None,
    ),
    (
        "no environment chosen",
        Role.admin,
        NO_CONTEXT,
        "get_health_summary",
        {"dashboard_id": 3},
        "окружение",
        None,
    ),
    (
        "unknown target env",
        Role.engineer,
        DASHBOARD,
        "deploy_dashboard",
        {"target_env_id": "nowhere"},
        "неизвестное окружение «nowhere»",
        None,
    ),
]


@pytest.mark.parametrize(
    ("why", "role", "page", "tool", "args", "words", "denied_role"),
    REFUSALS,
    ids=[row[0] for row in REFUSALS],
)
def test_refused_calls_say_why_and_which_role_a_denial_needs(
    why: str,
    role: Role,
    page: dict[str, Any],
    tool: str,
    args: dict[str, Any],
    words: str,
    denied_role: str | None,
) -> None:
    verdict = check_on_page(role, page, tool, args)
    assert isinstance(verdict, Refused), why
    assert words in verdict.message
    assert (verdict.required_role.value if verdict.required_role else None) == denied_role


ALLOWED = [
    # (why, role, page, tool, args, confirm_reads, verdict, level, tone)
    (
        "read runs at once",
        Role.analyst,
        DASHBOARD,
        "get_health_summary",
        {"dashboard_id": 3},
        False,
        Cleared,
        RiskLevel.safe,
        Tone.success,
    ),
    (
        "read asks when reads are confirmed",
        Role.analyst,
        DASHBOARD,
        "get_health_summary",
        {"dashboard_id": 3},
        True,
        NeedsConfirmation,
        RiskLevel.safe,
        Tone.success,
    ),
    (
        "SELECT in prod is a read",
        Role.analyst,
        DATASET_PROD,
        "superset_execute_sql",
        {"sql": "select 1", "database_id": 1},
        False,
        Cleared,
        RiskLevel.safe,
        Tone.success,
    ),
    (
        "DML in prod is loud",
        Role.engineer,
        DATASET_PROD,
        "superset_execute_sql",
        {"sql": "delete from t", "database_id": 1},
        False,
        NeedsConfirmation,
        RiskLevel.dangerous,
        Tone.destructive,
    ),
    (
        "DML in dev is calm",
        Role.engineer,
        DATASET_DEV,
        "superset_execute_sql",
        {"sql": "delete from t", "database_id": 1},
        False,
        NeedsConfirmation,
        RiskLevel.guarded,
        Tone.info,
    ),
    (
        "deploy to prod from dev",
        Role.engineer,
        DASHBOARD,
        "deploy_dashboard",
        {"target_env_id": "prod"},
        False,
        NeedsConfirmation,
        RiskLevel.dangerous,
        Tone.destructive,
    ),
    (
        "git write has no environment",
        Role.engineer,
        NO_CONTEXT,
        "create_branch",
        {"name": "feature/x"},
        False,
        NeedsConfirmation,
        RiskLevel.guarded,
        Tone.warning,
    ),
    (
        "a write asks even with confirm_reads off",
        Role.admin,
        DASHBOARD,
        "deploy_dashboard",
        {"target_env_id": "staging"},
        False,
        NeedsConfirmation,
        RiskLevel.guarded,
        Tone.info,
    ),
]


@pytest.mark.parametrize(
    ("why", "role", "page", "tool", "args", "confirm_reads", "kind", "level", "tone"),
    ALLOWED,
    ids=[row[0] for row in ALLOWED],
)
def test_allowed_calls_are_cleared_or_carded_by_kind_and_stage(
    why: str,
    role: Role,
    page: dict[str, Any],
    tool: str,
    args: dict[str, Any],
    confirm_reads: bool,
    kind: type[Cleared | NeedsConfirmation],
    level: RiskLevel,
    tone: Tone,
) -> None:
    verdict = check_on_page(role, page, tool, args, confirm_reads=confirm_reads)
    assert type(verdict) is kind, why
    assert isinstance(verdict, Cleared | NeedsConfirmation)
    assert verdict.tool.name == tool
    assert (verdict.decision.level, verdict.decision.tone) == (level, tone)
    assert verdict.decision.needs_confirmation is (kind is NeedsConfirmation)


def test_deploy_is_checked_against_its_target_not_the_page() -> None:
    verdict = check_on_page(Role.engineer, DASHBOARD, "deploy_dashboard", {"target_env_id": "prod"})
    assert isinstance(verdict, NeedsConfirmation)
    assert verdict.decision.env_id == "prod"
    assert verdict.decision.prompt.startswith("⚠️ ПРОДУКТИВ")
