"""A model that claims what never ran: the server's own line, and the claim marked (issue 21, 5).

The offline planner's answers are the server's own rendering of each result under its title:
they get no claim mark and no line repeating what they already say.
"""

from __future__ import annotations

from typing import Any

import pytest

from sstools.agent import texts
from sstools.agent.claims_check import claims_a_change
from sstools.agent.offline.planner import OfflinePlanner
from sstools.auth.roles import Role
from sstools.testing import answer, call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.cards import DELETE, delete_sales_card
from tests.agent.conftest import dashboard_context
from tests.support import types


async def test_a_deploy_claimed_after_a_validation_is_marked(make_agent: Any) -> None:
    claim = "Дашборд успешно развернут в prod."
    async with make_agent(call_tool("run_llm_validation", {}, text=claim)) as agent:
        _, events = await agent.ask("выкати его в prod", dashboard_context("3"), Role.analyst)
    said = events[-2]["text"]
    assert said.startswith(claim)
    assert texts.UNFOUNDED_CLAIM in said
    assert said.endswith("Выполнено: Проверка дашборда — задача запущена. " + texts.NOTHING_CHANGED)


async def test_a_plain_answer_says_nothing_changed(make_agent: Any) -> None:
    async with make_agent(answer("Здравствуйте! Чем помочь?")) as agent:
        cid, events = await agent.ask("привет", None, Role.analyst)
        history = (
            await agent.client.get(
                f"/api/agent/conversations/{cid}", headers=agent.auth(Role.analyst)
            )
        ).json()
    assert types(events) == ["run_started", "message", "done"]
    assert events[1]["text"] == f"Здравствуйте! Чем помочь?\n\n{texts.NOTHING_CHANGED}"
    assert texts.UNFOUNDED_CLAIM not in events[1]["text"]
    assert history["messages"][-1]["text"] == events[1]["text"]  # as stored, as shown


async def test_a_change_that_ran_is_listed_and_not_marked(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE, text="Удалено.")) as agent:
        cid, card = await delete_sales_card(agent, "staging")
        await agent.decide(cid, card["confirmation_id"], "approve")
        events = await agent.events_after(cid, card)
    assert fake_superset.executed_sql == [DELETE["sql"]]
    said = events[-2]["text"]
    assert said.startswith("Удалено.")
    assert said.endswith("Выполнено: Выполнение SQL — готово.")
    assert texts.UNFOUNDED_CLAIM not in said
    assert texts.NOTHING_CHANGED not in said


async def test_the_offline_planner_answer_does_not_repeat_itself(make_agent: Any) -> None:
    async with make_agent(OfflinePlanner(environment_ids=("ss-dev",))) as agent:
        _, events = await agent.ask(
            "какой статус у дашборда?", dashboard_context("3"), Role.analyst
        )
    said = events[-2]["text"]
    assert said.startswith("**Сводка состояния дашборда**")  # the page says «offline» once
    assert "Выполнено:" not in said  # it already names the call under its title
    assert texts.NOTHING_CHANGED not in said
    assert texts.UNFOUNDED_CLAIM not in said


@pytest.mark.parametrize(
    "text",
    [
        "Дашборд успешно развернут в prod.",
        "Ваш бэкап успешно создан.",
        "Готово: изменения применены.",
        "Ветка создана, изменения закоммичены.",
        "The dashboard was deployed to prod.",
        "Я удалил строки из таблицы sales.",
        "Бэкап уже создан.",
        "The backup was created successfully.",
    ],
)
def test_claims_of_a_change(text: str) -> None:
    assert claims_a_change(text)


@pytest.mark.parametrize(
    "text",
    [
        "Бэкапов нет.",
        "Ничего не изменено.",
        "Дашборд не был развернут: нужна роль «инженер».",
        "После подтверждения дашборд будет развернут в prod.",
        "Можно создать резервную копию — подтвердите?",
        "Дашборд в порядке: графики работают, владельцы есть.",
        "Запустил LLM-проверку, результат появится позже.",
        "Nothing was deployed.",
        "Дашборд опубликован, последний бэкап создан сегодня в 05:10.",
        "Дашборд обновлён 2 часа назад, владелец — alice.",
        "The dataset was created by alice and updated yesterday.",
        "",
    ],
)
def test_not_claims_of_a_change(text: str) -> None:
    assert not claims_a_change(text)
