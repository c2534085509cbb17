"""No secret reaches the agent's readers (issue 32 §1): a secret planted in the source's chart or
dataset never shows in a card (``confirm_required``), an approval's page, the stored events and
checkpoints, or anything the model is sent — over real HTTP, the domain's own plan on two fake
Superset environments, a scripted model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.testing import LiveServer, ScriptedChatModel
from sstools.testing.fake_superset import FakeSuperset, RoutingTransport
from tests.agent.conftest import dashboard_context
from tests.conftest import AuthHeaders
from tests.planted_secrets import SHOWN_METRIC, Planted, plant, planted
from tests.rig import REPORT_ID, report_superset, settings_for_places
from tests.support import read_events_sync


def _deploy_twice(messages: list[BaseMessage], offered: list[str]) -> AIMessage:
    """First the plan only (the model reads it), then the deploy itself (a card)."""
    results = [
        m for m in messages[messages.index(_last_human(messages)) :] if isinstance(m, ToolMessage)
    ]
    if len(results) >= 2:
        return AIMessage(content="готово")
    args: dict[str, Any] = {"target_env_id": "prod"}
    if not results:
        args["dry_run"] = True
    call = {"name": "deploy_dashboard", "args": args, "id": f"call_{len(results)}"}
    return AIMessage(content="", tool_calls=[call])


def _last_human(messages: list[BaseMessage]) -> BaseMessage:
    return next(m for m in reversed(messages) if isinstance(m, HumanMessage))


@pytest.fixture
def fake_superset() -> FakeSuperset:
    return report_superset()


@pytest.fixture
def prod_superset() -> FakeSuperset:
    return report_superset()


@pytest.fixture
async def settings(tmp_path: Path, fake_superset: FakeSuperset) -> Settings:
    places = [
        ("ss-dev", "ss-dev", "dev", "http://superset.test"),
        ("prod", "prod", "prod", "http://prod.superset.test"),
    ]
    # Two people for prod: the requester's approval leaves a request with its own page.
    return await settings_for_places(tmp_path, fake_superset, places, approvals_prod=2)


class Live:
    def __init__(self, client: httpx.Client, model: ScriptedChatModel, settings: Settings) -> None:
        self.client, self.model, self.settings = client, model, settings

    def __repr__(self) -> str:  # hypothesis prints fixture values; the model's log is large
        return f"Live({self.client.base_url})"

    def stored(self) -> bytes:
        """Every byte of sstools' database and the checkpoints, write-ahead logs included."""
        database = Path(self.settings.database_url.removeprefix("sqlite:///"))
        files = [database, self.settings.checkpoints_file]
        found = [Path(f"{one}{suffix}") for one in files for suffix in ("", "-wal")]
        return b"".join(one.read_bytes() for one in found if one.exists())

    def sent_to_the_model(self) -> str:
        return json.dumps(
            [
                [str(m.content), getattr(m, "tool_calls", None)]
                for p in self.model.prompts
                for m in p
            ],
            ensure_ascii=False,
        )


@pytest.fixture
def live(
    settings: Settings, fake_superset: FakeSuperset, prod_superset: FakeSuperset
) -> Iterator[Live]:
    model = ScriptedChatModel(script=_deploy_twice)
    transport = RoutingTransport(fake_superset, others={"prod.superset.test": prod_superset})
    app = create_app(settings, superset_transport=transport, chat_model=model)
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        yield Live(client, model, settings)


def _card_shows_the_metric(card: dict[str, Any]) -> bool:
    fields = [one for change in card["decision"]["changes"] for one in change["fields"]]
    return any(one["field"] == "params.metric" and one["after"] == SHOWN_METRIC for one in fields)


# 8: each example runs a whole agent turn to a card and reads its checkpoint.
@examples(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(planted())
def test_a_planted_secret_reaches_no_card_approval_event_checkpoint_or_model(
    live: Live,
    fake_superset: FakeSuperset,
    prod_superset: FakeSuperset,
    auth: AuthHeaders,
    secret: Planted,
) -> None:
    plant(fake_superset, prod_superset, secret)
    engineer = auth(Role.engineer)
    cid = live.client.post("/api/agent/conversations", headers=engineer).json()["id"]
    sent = live.client.post(
        f"/api/agent/conversations/{cid}/messages",
        json={"text": "разверни в prod", "uicontext": dashboard_context(str(REPORT_ID))},
        headers=engineer,
    )
    assert sent.status_code == 202, sent.text
    events = read_events_sync(live.client, cid, engineer)
    card = events[-1]
    assert card["type"] == "confirm_required", events
    assert _card_shows_the_metric(card)  # the card shows the changes, not a blank
    approved = live.client.post(
        f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
        json={"decision": "approve"},
        headers=engineer,
    )
    assert approved.json()["status"] == "awaiting_second", approved.text
    request = live.client.get(
        f"/api/approvals/{card['confirmation_id']}", headers=auth(Role.analyst)
    )
    assert request.status_code == 200
    assert request.json()["changes"]

    assert secret.secret not in json.dumps(events, ensure_ascii=False)
    assert secret.secret not in request.text
    assert "Потребление" in live.sent_to_the_model()  # the model did read the plan's excerpts
    assert secret.secret not in live.sent_to_the_model()
    assert secret.secret.encode() not in live.stored()
