"""The agent with no model answers what was asked (issue 22 §2-§4), through the real graph.

A write the role lacks is refused in words naming the role (not an unrelated read); a missing
slot is asked back in words with choices, never an argument's name; «the last deploy» and a
task status with no id are the conversation's own latest task; «расскажи про этот дашборд»
says what it shows, apart from its status; the page's «Сравнить» answers with the plan's
differences. Each failed on the keyword planner.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from sstools.agent.texts import tools as tool_texts
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.web.strings import UI
from tests.agent.test_offline_understands_requests import (
    ENVIRONMENTS,
    Planner,
    Server,
    answer,
    called,
    say,
    server,
)
from tests.agent.test_questions_are_read import TASK, page_context
from tests.support import read_events, types

# What an offline turn reads before planning: the names it may resolve (no tool's call).
FLEET_LISTINGS = {("GET", "/api/dashboards"), ("GET", "/api/datasets"), ("GET", "/api/tasks")}


def read_before_a_turn(request: tuple[str, str]) -> bool:
    """What a turn reads before the planner: the fleet's listings, the page's object by name."""
    return request in FLEET_LISTINGS or (
        request[0] == "GET" and request[1].startswith("/api/objects/")
    )


__all__ = ["server"]  # the fixture, shared with the requests' tests

ARGUMENT_NAMES = {name for tool in CATALOGUE.values() for name in tool.args_model.model_fields}


def prints_an_argument_name(text: str) -> bool:
    """Whether a reply shows a person an argument's name (``task_id``), not words for it."""
    return any(re.search(rf"\b{name}\b", text) for name in ARGUMENT_NAMES)


D, M, A, E, N = "dashboard", "migration", Role.admin, Role.engineer, Role.analyst


@pytest.mark.parametrize(
    ("text", "page", "role", "needed"),
    [
        ("выкати на прод", D, N, "инженер"),
        ("закоммить дашборд", D, N, "инженер"),
        ("создай ветку feature/x", D, N, "инженер"),
        ("сделай бэкап прода", None, E, "администратор"),
        ("восстанови прод из копии prod.20261128T030000123456Z", M, E, "администратор"),
        ("мигрируй дашборд 4 в прод", M, N, "инженер"),
    ],
)
async def test_a_write_the_role_lacks_is_refused_naming_the_role(
    make_agent: Any,
    server: tuple[Server, str],
    text: str,
    page: str | None,
    role: Role,
    needed: str,
) -> None:
    """It answered with the health summary, the environment list or the backups instead."""
    made, url = server
    events = await say(make_agent, url, text, page, role)
    assert called(events) == [], events
    said = answer(events)
    assert f"«{needed}»" in said, said
    mine = {"analyst": "аналитик", "engineer": "инженер"}[role.value]
    assert f"у вас — «{mine}»" in said, said
    # Only the fleet's listings the planner reads names from (sstools/agent/fleet.py): no tool.
    assert [one for one in made.requests if not read_before_a_turn(one)] == []


@pytest.mark.parametrize(
    ("text", "page", "role", "words"),
    [
        ("выкати дашборд", D, E, ["в какое окружение", "staging", "prod"]),
        ("задеплой в прод", None, E, ["какой дашборд выкатить"]),
        ("создай ветку", D, E, ["как назвать новую ветку"]),
        ("откати деплой", M, E, ["какую выкатку откатить"]),
        ("my task status?", M, N, ["какую задачу"]),
        ("восстанови бэкап в прод", M, A, ["какая резервная копия нужна"]),
        ("мигрируй на staging", M, E, ["какие дашборды перенести"]),
    ],
)
async def test_a_missing_slot_is_asked_in_words_never_by_its_argument_name(
    make_agent: Any,
    server: tuple[Server, str],
    text: str,
    page: str | None,
    role: Role,
    words: list[str],
) -> None:
    """«уточните: task_id», «уточните: name», «уточните: dashboard_id» were dead ends."""
    _, url = server
    events = await say(make_agent, url, text, page, role)
    assert called(events) == [], events
    said = answer(events)
    assert not prints_an_argument_name(said), said
    for word in words:
        assert word in said, said


async def test_the_last_deploy_and_my_task_are_this_conversations_own(
    make_agent: Any, server: tuple[Server, str]
) -> None:
    """A deploy approved here; then «откати последнюю выкатку» is its rollback, and a status
    question with no number is its status (they asked «уточните: task_id»)."""
    made, url = server
    async with make_agent(Planner(environment_ids=ENVIRONMENTS), tools_base_url=url) as agent:
        cid = await agent.conversation(E)
        await agent.send(cid, "выкати в prod", page_context(D), E)
        first = await read_events(agent.client, cid, agent.auth(E))
        await agent.decide(cid, first[-1]["confirmation_id"], "approve", E)
        started = await read_events(
            agent.client, cid, agent.auth(E), last_event_id=first[-1]["_id"]
        )
        await agent.send(cid, "как там моя задача?", page_context(M), E)
        status = await read_events(
            agent.client, cid, agent.auth(E), last_event_id=started[-1]["_id"]
        )
        await agent.send(cid, "откати последнюю выкатку", page_context(M), E)
        rollback = await read_events(
            agent.client, cid, agent.auth(E), last_event_id=status[-1]["_id"]
        )
    assert called(status) == [("get_task_status", {"task_id": TASK["id"]})], status
    card = rollback[-1]
    assert card["type"] == "confirm_required", rollback
    assert (card["tool"], card["args"]["task_id"]) == ("rollback_deploy", TASK["id"])
    assert made.writes == [("POST", "/api/deploy")]


async def test_tell_me_about_this_dashboard_says_what_it_shows_not_its_status(
    make_agent: Any, server: tuple[Server, str]
) -> None:
    _, url = server
    about = answer(await say(make_agent, url, "расскажи про этот дашборд", D, N))
    status = answer(await say(make_agent, url, "как дела у дашборда?", D, N))
    assert about != status
    # What it shows and where it lives: charts, their datasets, owners, environment, links.
    shown_all = ("Потребление по часам", "«energy_consumption»", "датасет #4", "Алиса Петрова")
    assert "датасет #3" not in about, about  # named, not numbered
    for shown in (*shown_all, "ss-dev"):
        assert shown in about, about
    assert "что показывает" in about, about
    assert "/dashboards/10?env_id=ss-dev" in about, about
    # The status summary's verdict is the other answer's.
    assert "в порядке" in status, status
    assert "в порядке" not in about, about


async def test_the_compare_action_answers_with_the_plans_differences(
    make_agent: Any, server: tuple[Server, str]
) -> None:
    """The dashboard page's «Сравнить» prompt got the health summary; it is the deploy's plan
    to that environment, read only."""
    made, url = server
    prompt = UI["prompt_compare"].format(target="prod")
    events = await say(make_agent, url, prompt, D, E)
    assert "confirm_required" not in types(events), events
    assert called(events) == [("deploy_dashboard", {"dry_run": True, "target_env_id": "prod"})]
    said = answer(events)
    assert "1 дашборд будет изменён" in said, said
    assert re.search(r"Отчёт", said), said
    assert tool_texts.DRY_RUN_NOTHING_CHANGED in said, said
    assert made.writes == []
