"""Answers people read (offline mode): each tool's result in Russian, verdict first, no JSON
words; and confirmation cards whose arguments are labelled values."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from pydantic import SecretStr

from sstools.agent.capabilities import capabilities
from sstools.agent.card.arguments import card_arguments
from sstools.agent.context import ObjectType, UIContext
from sstools.agent.offline.answers import RENDERERS, render, render_content
from sstools.agent.offline.answers.words import count
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE, CallScope
from sstools.auth.roles import Role
from sstools.environments import Environment, EnvironmentRegistry, Stage
from sstools.testing import call_tool
from tests.agent.conftest import dashboard_context

ENVS = EnvironmentRegistry(
    [
        Environment(
            id=env_id,
            name=name,
            stage=stage,
            url="http://x",
            username="u",
            password=SecretStr("p"),
        )
        for env_id, name, stage in (
            ("ss-dev", "Superset dev", Stage.dev),
            ("prod", "Superset prod", Stage.prod),
        )
    ]
)
ON_DASHBOARD = CallScope(env_id="ss-dev", object_type=ObjectType.dashboard, object_id=10)
ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")

HEALTH = {
    "env_id": "ss-dev",
    "dashboard_id": 10,
    "title": "Отчёт по энергопотреблению",
    "published": False,
    "changed_on": "2026-11-30T05:46:47.801247Z",
    "owners": [],
    "charts": [
        {"id": 1, "name": "Потребление", "dataset_id": 1, "dataset_resolves": True},
        {"id": 2, "name": "Тарифы", "dataset_id": 9, "dataset_resolves": False},
    ],
    "broken_charts": 1,
    "git_status": "не версионирован",
    "git": {"status": "untracked", "last_commit": None},
    "last_validation": "последняя проверка: 30 ноября 2026, 05:54, 1 проблема",
    "validation": {"at": "2026-11-30T05:54:13Z", "problems": 1, "errors": 1},
    "status": "degraded",
    "problems": ["1 график без данных: «Тарифы»", "у дашборда нет владельцев"],
    "summary": "…",
}

TASK = {
    "id": "da6e846afe4c46ae81bbad8b9c4d233f",
    "kind": "validation",
    "objects": ["Отчёт по энергопотреблению"],
    "env_id": "ss-dev",
    "source": "ss-dev",
    "started_by": "admin",
    "status": "succeeded",
    "progress": {"step": 3, "total": 3, "name": "сохранение результатов"},
    "result": {
        "counts": {"error": 1, "warning": 0, "info": 1},
        "review": "модель не настроена: только автоматические проверки",
        "findings": [
            {
                "kind": "no_description",
                "severity": "info",
                "object_type": "chart",
                "object_name": "Потребление",
                "message": "нет описания",
                "fix": "Добавьте описание",
            },
            {
                "kind": "missing_dataset",
                "severity": "error",
                "object_type": "chart",
                "object_name": "Тарифы",
                "message": "датасета графика больше нет",
                "fix": None,
            },
        ],
    },
    "error": None,
    "created_at": "2026-11-30T05:54:38.154970Z",
    "started_at": "2026-11-30T05:54:38.223949Z",
    "finished_at": "2026-11-30T05:54:39.135151Z",
}


def _clean(text: str) -> None:
    """What a person must never read: JSON booleans, ISO timestamps, tool ids, descriptions."""
    assert not re.search(r"\b(True|False|true|false|null|None)\b", text), text
    assert not ISO.search(text), text
    for name, spec in CATALOGUE.items():
        assert name not in text, (name, text)
        assert spec.description.splitlines()[0] not in text


def test_every_tool_in_the_catalogue_has_a_renderer_entry() -> None:
    assert set(RENDERERS) == set(CATALOGUE)


@pytest.mark.parametrize(
    ("number", "words"),
    [
        (1, "1 дашборд"),
        (3, "3 дашборда"),
        (5, "5 дашбордов"),
        (11, "11 дашбордов"),
        (21, "21 дашборд"),
    ],
)
def test_counts_are_in_words_a_person_uses(number: int, words: str) -> None:
    assert count(number, "dashboard") == words


def test_health_reads_verdict_first_with_dates_and_links() -> None:
    answer = render("get_health_summary", HEALTH)
    lines = answer.splitlines()
    assert lines[0] == "«Отчёт по энергопотреблению» в ss-dev: есть проблемы (2 проблемы)."
    assert lines[1] == "- 1 график без данных: «Тарифы»"
    assert "- Git: не версионирован" in lines
    assert "- Изменён: 30 ноября 2026, 05:46" in lines
    assert "- Последняя проверка: 30 ноября 2026, 05:54, 1 проблема" in lines
    assert "- Опубликован: нет" in lines
    assert "без данных: «Тарифы»" in answer
    assert "[в sstools](/dashboards/10?env_id=ss-dev)" in answer
    _clean(answer)


def test_a_finished_validation_task_lists_errors_before_notes() -> None:
    answer = render("get_task_status", TASK)
    lines = answer.splitlines()
    assert lines[0] == "Проверка дашборда «Отчёт по энергопотреблению»: выполнена."
    assert lines[1] == "Проверка нашла ошибок: 1, предупреждений: 0. Заметок: 1."
    assert lines[2].startswith("- ошибка: график «Тарифы» — датасета графика больше нет")
    assert lines[3].startswith("- заметка: график «Потребление»")
    assert "- Завершена: 30 ноября 2026, 05:54" in lines
    _clean(answer)


def test_a_started_task_says_it_started_and_nothing_its_end_will_contradict() -> None:
    running = {**TASK, "status": "running", "result": None, "finished_at": None}
    answer = render("run_llm_validation", running)
    assert answer.startswith("Проверка дашборда «Отчёт по энергопотреблению»: задача запущена.")
    assert "выполняется" not in answer
    assert "спросите" not in answer
    assert "Шаг 3 из 3: сохранение результатов" in answer
    _clean(answer)


def test_asked_about_a_running_task_the_answer_says_how_to_ask_again() -> None:
    running = {**TASK, "status": "running", "result": None, "finished_at": None}
    answer = render("get_task_status", running)
    assert answer.startswith("Проверка дашборда «Отчёт по энергопотреблению»: выполняется.")
    assert "спросите «статус задачи da6e846a» позже" in answer  # as people quote a task
    _clean(answer)


def test_the_fallback_never_prints_json_words() -> None:
    payload = {
        "can_reach": True,
        "published": False,
        "changed_on": "2026-11-30T05:46:47Z",
        "message": "see get_task_status, started 2026-11-30T05:46:47+00:00",
        "owners": [{"name": "ирина", "active": True}],
    }
    answer = render("no_such_tool", payload)
    assert "- Опубликован: нет" in answer
    assert "- Изменён: 30 ноября 2026, 05:46" in answer
    assert "«Статус задачи»" in answer  # the tool id became its title
    assert "can_reach" not in answer
    _clean(answer)


def test_an_error_result_reads_as_a_sentence() -> None:
    content = json.dumps({"error": "«Выполнение SQL»: ошибка — нет таблицы t"})
    answer = render_content("superset_execute_sql", content)
    assert answer == "Не получилось: «Выполнение SQL»: ошибка — нет таблицы t"


def test_a_query_s_answer_shows_the_query_that_ran_after_its_rows() -> None:
    sql = 'SELECT "region", AVG("avg_temp_c") AS "avg_temp_c" FROM "main"."weather_daily"'
    content = json.dumps(
        {"columns": ["region", "avg_temp_c"], "rows": [["Москва", 6.1]], "row_count": 1}
    )
    answer = render_content("superset_execute_sql", content, {"sql": sql})
    assert answer.index("| Москва | 6.1 |") < answer.index("Выполненный запрос:")
    assert f"```sql\n{sql}\n```" in answer  # written from the person's words: they see it
    empty = render_content("superset_execute_sql", json.dumps({"rows": []}), {"sql": sql})
    assert empty.startswith("Запрос выполнен; строк нет.")
    assert sql in empty


def test_a_superset_name_cannot_become_a_link_or_break_a_table() -> None:
    evil = "[нажми](javascript:alert(1)) | колонка"
    answer = render("search_dashboards", [{"id": 1, "title": evil, "published": True}])
    assert "[нажми](javascript" not in answer
    assert "\\[нажми\\]" in answer
    assert "\\| колонка" in answer


def test_a_shortened_list_says_so() -> None:
    items = [{"id": n, "title": f"Д{n}", "published": True} for n in range(1, 21)]
    answer = render("search_dashboards", {"items": items, "items_total_count": 35, "note": "…"})
    assert answer.startswith("Найдено: 35 дашбордов.")
    assert answer.endswith("Показаны первые 20 из 35.")


def test_the_permissions_audit_is_in_russian() -> None:
    payload = {
        "object_type": "dataset",
        "object_name": "energy_consumption",
        "roles": [
            {
                "role": "Gamma",
                "can_reach": False,
                "via": ["can_read on Dataset"],
                "missing": ["a data grant covering energy_consumption (e.g. datasource_access)"],
            },
            {
                "role": "energy_viewers",
                "can_reach": True,
                "via": ["can_read on Dataset"],
                "missing": [],
            },
        ],
        "notes": ["Admin reaches everything in Superset regardless of grants."],
    }
    answer = render("superset_audit_permissions", payload)
    assert answer.startswith("Датасет «energy_consumption» видят роли: energy_viewers.")
    assert "доступ к данным «energy_consumption»" in answer
    assert "a data grant" not in answer
    assert "regardless" not in answer
    _clean(answer)


def test_show_capabilities_has_russian_titles_and_reasons_only() -> None:
    context = UIContext.model_validate(
        {"contextVersion": 1, "objectType": "dashboard", "objectId": "10", "envId": "ss-dev"}
    )
    payload = capabilities(select_tools(Role.analyst, context), ObjectType.dashboard)
    assert all("what" not in item for item in payload["available"])  # no English descriptions
    answer = render("show_capabilities", payload)
    assert "- Сводка состояния дашборда" in answer
    assert "- нужна роль «инженер»: Выкатка дашборда" in answer
    assert "- не относится к дашборду: " in answer
    assert "engineer" not in answer
    _clean(answer)


def test_a_deploy_card_names_the_dashboard_and_the_target() -> None:
    tool = CATALOGUE["deploy_dashboard"]
    args = tool.args_model.model_validate({"target_env_id": "prod"})
    shown = card_arguments(tool, args, ON_DASHBOARD, "Отчёт по энергопотреблению", ENVS)
    assert [(a.label, a.value) for a in shown] == [
        ("Дашборд", "Отчёт по энергопотреблению (#10)"),
        ("Куда", "prod (Superset prod)"),
        ("Откуда", "ss-dev (Superset dev)"),
    ]


def test_a_card_shows_another_dashboard_by_number_and_sql_in_full() -> None:
    tool = CATALOGUE["execute_migration"]
    args = tool.args_model.model_validate({"target_env_id": "prod", "dashboard_ids": [12, 10]})
    shown = card_arguments(tool, args, ON_DASHBOARD, "Отчёт", ENVS)
    assert ("Дашборды", "#12, Отчёт (#10)") in [(a.label, a.value) for a in shown]
    sql = "delete from t where id in ({})".format(", ".join(map(str, range(200))))  # noqa: S608
    tool = CATALOGUE["superset_execute_sql"]
    args = tool.args_model.model_validate({"sql": sql, "database_id": 1})
    shown = card_arguments(tool, args, ON_DASHBOARD, None, ENVS)
    assert [(a.label, a.value) for a in shown] == [
        ("SQL", sql),
        ("База данных", "1"),
        ("Окружение", "ss-dev (Superset dev)"),
    ]


async def test_the_confirmation_event_carries_the_labelled_arguments(
    make_agent: Any, plan_server: str
) -> None:
    """The graph puts them on the decision the page renders; the model's args stay as they were.
    The dashboard is named as Superset has it («Дашборд 3»), not as the page's URL did."""
    deploy = call_tool("deploy_dashboard", {"target_env_id": "prod"})
    async with make_agent(deploy, tools_base_url=plan_server) as agent:
        _, events = await agent.ask("выкати на прод", dashboard_context("3"))
    card = events[-1]
    assert card["type"] == "confirm_required", events
    assert card["args"] == {"target_env_id": "prod"}
    labelled = [(a["label"], a["value"]) for a in card["decision"]["arguments"]]
    assert labelled == [
        ("Дашборд", "Дашборд 3 (#3)"),
        ("Куда", "prod (Prod)"),  # the name in tests/agent's environments registry
        ("Откуда", "ss-dev (Dev)"),
    ]
