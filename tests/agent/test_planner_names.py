"""Issue 36 and issue 33 §1, §2: the offline planner understands names, scope words, follow-ups.

The planner is handed a fleet as the graph hands it (``fleet.hand``): the sandbox's dashboards
(dev in the seed's order: «Energy KPIs» is 6, «Отчёт по энергопотреблению» 10), datasets and a
few task records. Each case is what a person wrote and the call they should get, or the question
back they should read.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from sstools.agent import fleet
from sstools.agent.context import UIContext, prompt_block, system_message
from sstools.agent.fleet import Fleet, FleetReader, Listed, ListedDataset, ListedTask
from sstools.agent.offline.planner import offline_planner
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.sandbox.seed import DASHBOARDS, DATASETS

ENVS = ["ss-dev", "staging", "prod"]
PLANNER = offline_planner(ENVS)
DEPLOY = "20261201" + "ab" * 12  # a task whose first eight characters are all digits
RELEASED = sorted(spec.title for spec in DASHBOARDS if not spec.dev_only)
FLEET = Fleet(
    dashboards=[
        Listed(env_id="ss-dev", id=n, title=spec.title) for n, spec in enumerate(DASHBOARDS, 1)
    ]
    + [Listed(env_id=env, id=n, title=t) for env in ENVS[1:] for n, t in enumerate(RELEASED, 1)],
    datasets=[
        ListedDataset(env_id="ss-dev", id=n, name=name, schema_name="main", database_id=1)
        for n, name in enumerate(DATASETS, 1)
    ],
    tasks=[
        ListedTask(id=DEPLOY, kind="deploy", status="succeeded", env_id="prod", started_by="al"),
        ListedTask(
            id="9" * 32,
            kind="backup",
            status="succeeded",
            env_id="ss-dev",
            objects=["ss-dev.20261130T090112635296Z"],
        ),
    ],
    me="al",
)
PROD_REPORT = RELEASED.index("Отчёт по энергопотреблению") + 1


def plan(
    text: str,
    object_type: str | None = None,
    object_id: str | None = None,
    earlier: list[BaseMessage] | None = None,
    role: Role = Role.engineer,
    *,
    handed: Fleet = FLEET,
    env_id: str = "ss-dev",
) -> AIMessage:
    context = UIContext.model_validate(
        {
            "contextVersion": 1,
            "objectType": object_type,
            "objectId": object_id,
            "envId": env_id,
            "route": "/",
        }
    )
    offered = select_tools(role, context).offered
    bound = PLANNER.bind_tools([CATALOGUE[name].schema() for name in offered])
    system = fleet.hand(system_message(prompt_block(context), context), handed)
    reply = bound.invoke([system, *(earlier or []), HumanMessage(text)])
    assert isinstance(reply, AIMessage)
    return reply


def call(reply: AIMessage) -> tuple[str, dict[str, Any]]:
    assert reply.tool_calls, reply.text
    return reply.tool_calls[0]["name"], dict(reply.tool_calls[0]["args"])


def test_a_dashboard_named_by_its_title_is_compared_between_the_places_named() -> None:
    name, args = call(plan("сравни Energy KPIs в dev и prod"))
    assert name == "preview_migration"
    assert args == {"dashboard_ids": [6], "source_env_id": "ss-dev", "target_env_id": "prod"}


@pytest.mark.parametrize(
    ("text", "titles"),
    [
        ("есть ли у нас дашборд про погоду?", {"Погода и нагрузка", "Weather Overview"}),
        (
            "найди дашборды про продажи",
            {"Продажи по регионам", "Каналы продаж", "Regional Sales Trends"},
        ),
    ],
)
def test_a_search_by_topic_finds_the_titles_in_both_languages(text: str, titles: set[str]) -> None:
    name, args = call(plan(text, role=Role.analyst))
    assert name == "search_dashboards"
    found = {one.title for one in FLEET.dashboards if one.env_id == "ss-dev"}
    by_id = {one.id: one.title for one in FLEET.dashboards if one.env_id == "ss-dev"}
    assert {by_id[one] for one in args["dashboard_ids"]} == titles
    assert titles <= found


def test_all_dashboards_of_the_source_are_migrated_and_listed() -> None:
    name, args = call(plan("перенеси все дашборды из дева в стейдж"))
    assert name == "execute_migration"
    assert args["dashboard_ids"] == list(range(1, len(DASHBOARDS) + 1))
    assert (args["source_env_id"], args["target_env_id"]) == ("ss-dev", "staging")


def test_an_answer_to_the_question_back_keeps_the_first_message() -> None:
    asked = plan("перенеси в стейдж", "migration")
    assert not asked.tool_calls
    assert "какие дашборды" in asked.text
    name, args = call(
        plan("7 и 8", "migration", earlier=[HumanMessage("перенеси в стейдж"), asked])
    )
    assert name == "execute_migration"
    assert (args["dashboard_ids"], args["target_env_id"]) == ([7, 8], "staging")


def test_rollback_by_its_digits_takes_the_environment_from_the_task_record() -> None:
    """The task page's «Откатить…» sends «откати выкатку 20261201»: one press, the card."""
    name, args = call(plan(f"откати выкатку {DEPLOY[:8]}"))
    assert name == "rollback_deploy"
    assert args == {"task_id": DEPLOY, "env_id": "prod"}


def test_a_one_word_environment_answer_fills_the_rollback() -> None:
    first = "откати выкатку 4c1d9e2a"
    asked = plan(first)
    assert not asked.tool_calls
    assert "prod" in asked.text
    name, args = call(plan("prod", earlier=[HumanMessage(first), asked]))
    assert (name, args) == ("rollback_deploy", {"task_id": "4c1d9e2a", "env_id": "prod"})


def test_the_last_backup_comes_from_the_task_records() -> None:
    name, args = call(plan("восстанови последний бэкап дева", role=Role.admin))
    assert name == "restore_backup"
    assert args["backup_id"] == "ss-dev.20261130T090112635296Z"


@pytest.mark.parametrize(
    ("text", "sql", "limit"),
    [
        ("сколько строк в таблице?", 'SELECT count(*) AS row_count FROM "main"."regions"', None),
        ("покажи первые 10 строк", 'SELECT * FROM "main"."regions" LIMIT 10', 10),
    ],
)
def test_a_data_question_on_a_dataset_is_its_select(text: str, sql: str, limit: int) -> None:
    name, args = call(plan(text, "dataset", "2", role=Role.analyst))
    assert name == "superset_execute_sql"
    assert args["sql"] == sql
    assert args["database_id"] == 1
    assert args.get("limit") == limit


def test_the_page_dashboard_read_in_another_environment_is_its_namesake() -> None:
    name, args = call(plan("пакажи статус дашборда на проде", "dashboard", "10", role=Role.analyst))
    assert (name, args) == ("get_health_summary", {"env_id": "prod", "dashboard_id": PROD_REPORT})


@pytest.mark.parametrize(
    ("text", "tool", "args"),
    [
        (
            "чем прод отличается от дева по этому дашборду",
            "deploy_dashboard",
            {"target_env_id": "prod", "dry_run": True},
        ),
        ("какие графики на этом дашборде?", "get_health_summary", {"detail": True}),
        ("на каких датасетах он построен", "get_health_summary", {"detail": True}),
    ],
)
def test_a_question_is_a_read_never_a_card_or_a_task(
    text: str, tool: str, args: dict[str, Any]
) -> None:
    assert call(plan(text, "dashboard", "10")) == (tool, args)


def test_rollback_where_none_is_offered_says_where_it_is() -> None:
    # A dataset's page offers no rollback (a dashboard's does since issue 33 §3).
    reply = plan("откати прод к предыдущей версии", "dataset", "2")
    assert not reply.tool_calls
    assert "Откатить…" in reply.text


def test_rollback_beside_a_dashboard_with_no_deploy_of_it_asks_which_never_another_card() -> None:
    reply = plan("откати прод к предыдущей версии", "dashboard", "10")
    assert not reply.tool_calls or reply.tool_calls[0]["name"] == "rollback_deploy"


async def test_the_fleet_is_read_once_a_while_per_person() -> None:
    reads: list[tuple[str, dict[str, Any], str]] = []
    now = [0.0]

    async def read(path: str, query: dict[str, Any], token: str) -> Any:
        reads.append((path, query, token))
        if path == "/api/dashboards":
            return {"items": [{"id": 6, "title": "Energy KPIs", "published": True}]}
        return None  # a listing that fails is empty

    reader = FleetReader(read, ["ss-dev"], ttl_s=30, clock=lambda: now[0])
    made = await reader.fleet("al", "token-a")
    assert made.dashboards == [Listed(env_id="ss-dev", id=6, title="Energy KPIs")]
    assert made.datasets == []
    assert made.me == "al"
    assert {path for path, _, token in reads if token == "token-a"} == {
        "/api/dashboards",
        "/api/datasets",
        "/api/tasks",
    }
    await reader.fleet("al", "token-a")
    assert len(reads) == 3  # kept
    now[0] = 31.0
    await reader.fleet("al", "token-a")
    assert len(reads) == 6  # read again once kept long enough


def test_rollback_from_a_dashboard_chat_after_its_deploy_is_the_rollback() -> None:
    """The task line's «Откатить…» in a dashboard's chat: the rollback, not a deploy question."""
    context = UIContext.model_validate(
        {"contextVersion": 1, "objectType": "dashboard", "objectId": "10", "envId": "ss-dev",
         "route": "/"}
    )  # fmt: skip
    offered = select_tools(Role.engineer, context, following_task=True).offered
    bound = PLANNER.bind_tools([CATALOGUE[name].schema() for name in offered])
    system = fleet.hand(system_message(prompt_block(context), context), FLEET)
    reply = bound.invoke([system, HumanMessage(f"откати выкатку {DEPLOY[:8]}")])
    assert isinstance(reply, AIMessage)
    assert call(reply) == ("rollback_deploy", {"task_id": DEPLOY, "env_id": "prod"})
