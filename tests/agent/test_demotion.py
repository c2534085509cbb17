"""An approval runs with the approver's role at the time of approval, not at the time of asking."""

from __future__ import annotations

from typing import Any

from sstools.auth.roles import Role
from sstools.auth.users import set_role
from sstools.http.services import Services
from sstools.testing import call_tool
from sstools.testing.fake_superset import FakeSuperset
from tests.agent.cards import DELETE, delete_sales_card
from tests.support import types


async def test_an_engineer_demoted_before_approving_cannot_run_the_write(
    make_agent: Any, fake_superset: FakeSuperset
) -> None:
    async with make_agent(call_tool("superset_execute_sql", DELETE, text="Удалено.")) as agent:
        cid, card = await delete_sales_card(agent)
        services: Services = agent.app.state.services
        async with services.sessions() as session:
            await set_role(session, "engineer", Role.analyst)
        # The same token, minutes later: its holder is an analyst now.
        decided = await agent.decide(cid, card["confirmation_id"], "approve")
        after = await agent.events_after(cid, card)
    assert decided.status_code == 200, decided.text
    assert types(after)[:3] == ["run_started", "tool_result", "permission_denied"]
    assert after[1]["outcome"] == "permission_denied"
    assert after[2]["required_roles"] == ["engineer"]
    assert fake_superset.executed_sql == []  # the write never reached the database
