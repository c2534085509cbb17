"""Who may put a dashboard's document on git, and what a failing model endpoint leaves readable.

Issue 18: an analyst's documentation is stored, never committed (a commit is a write: engineer,
``commit=true``); the model endpoint's error text — which may quote the API key — is never stored
where every user reads it (task results, validation rows, ``GET /api/tasks/{id}``).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from dulwich.refs import Ref
from dulwich.repo import Repo
from pydantic import SecretStr

from sstools.agent.offline.answers.tasks import task as offline_answer
from sstools.app import create_app
from sstools.auth.roles import Role
from sstools.auth.secret import secret_file_path
from sstools.config import Settings
from sstools.git_store import DEFAULT_BRANCH, GitStore
from sstools.testing import LiveServer, ScriptedChatModel, call_tool
from tests.conftest import AuthHeaders, seed_users
from tests.integration.conftest import ARCHIVE, ENV, HEALTHY, dashboard_id
from tests.integration.deploy_support import wait_for_task
from tests.openai_server import ScriptedOpenAI
from tests.support import read_events, types

API_KEY = "sk-live-7Qx9SECRETkey0123456789abcdef"


@pytest.fixture(scope="module")
async def own_settings(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The sandbox and the session's signing key; a database, a git repository and an app of
    this module's own, so git's log holds only what these tests did and their runs change no
    other test's «last validation» or start limits."""
    folder = tmp_path_factory.mktemp("docs")
    GitStore(folder / "git").repository.branches()  # created now, root commit and all
    own = settings.model_copy(
        update={
            "git_dir": folder / "git",
            "database_url": f"sqlite:///{folder / 'sstools.db'}",
            "checkpoints_file": folder / "checkpoints.db",
            "jwt_secret_file": secret_file_path(settings),  # the `auth` fixture's tokens hold
        }
    )
    await seed_users(own)
    return own


@pytest.fixture(scope="module")
def api_url(own_settings: Settings) -> Iterator[str]:
    with LiveServer(create_app(own_settings)) as server:
        yield server.url


@pytest.fixture
async def api(api_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=api_url, timeout=60) as client:
        yield client


def main_log(git_dir: Path) -> list[tuple[str, str]]:
    """(commit id, author) of every commit on main, newest first, read with dulwich."""
    with Repo(str(git_dir)) as repo:
        ref = Ref(f"refs/heads/{DEFAULT_BRANCH}".encode())
        return [
            (entry.commit.id.decode(), entry.commit.author.decode())
            for entry in repo.get_walker(include=[repo.refs[ref]])
        ]


def file_on_main(git_dir: Path, path: str) -> str | None:
    _, files = GitStore(git_dir).repository.read(DEFAULT_BRANCH, [path])
    return files[path].decode() if path in files else None


async def task_ids(api: httpx.AsyncClient, auth: AuthHeaders) -> set[str]:
    listed = await api.get(
        "/api/tasks", params={"env_id": ENV, "limit": 500}, headers=auth(Role.admin)
    )
    assert listed.status_code == 200, listed.text
    return {one["id"] for one in listed.json()}


async def document(
    api: httpx.AsyncClient, auth: AuthHeaders, role: Role, board: int, **params: str
) -> dict[str, Any]:
    started = await api.post(
        f"/api/dashboards/{board}/document", params={"env_id": ENV, **params}, headers=auth(role)
    )
    assert started.status_code == 202, started.text
    task = await wait_for_task(api, auth, started.json()["id"])
    assert task["status"] == "succeeded", task["error"]
    return task


async def stored(api: httpx.AsyncClient, auth: AuthHeaders, board: int) -> dict[str, Any]:
    got = await api.get(
        f"/api/dashboards/{board}/documentation", params={"env_id": ENV}, headers=auth(Role.analyst)
    )
    assert got.status_code == 200, got.text
    body: dict[str, Any] = got.json()
    return body


async def test_an_analysts_document_is_stored_but_not_committed(
    api: httpx.AsyncClient, auth: AuthHeaders, own_settings: Settings
) -> None:
    board = await dashboard_id(api, auth, HEALTHY)
    before = main_log(own_settings.git_dir)

    task = await document(api, auth, Role.analyst, board)

    result = task["result"]
    assert result["committed"] is False
    assert result["git_commit"] is None
    assert "коммит в git" not in json.dumps(task, ensure_ascii=False)  # no commit step ran
    document_now = await stored(api, auth, board)
    assert document_now["task_id"] == task["id"]
    assert document_now["markdown"] == result["markdown"]
    assert (document_now["committed"], document_now["git_commit"]) == (False, None)
    assert main_log(own_settings.git_dir) == before
    assert all("analyst" not in author for _, author in main_log(own_settings.git_dir))
    said = offline_answer(task)  # what the agent says without a model
    assert said is not None
    assert "коммитит инженер" in said
    assert "сохранена в git" not in said


async def test_an_analyst_asking_to_commit_is_refused_and_nothing_starts(
    api: httpx.AsyncClient, auth: AuthHeaders, own_settings: Settings
) -> None:
    board = await dashboard_id(api, auth, HEALTHY)
    before = main_log(own_settings.git_dir)
    started_before = await task_ids(api, auth)

    refused = await api.post(
        f"/api/dashboards/{board}/document",
        params={"env_id": ENV, "commit": "true"},
        headers=auth(Role.analyst),
    )

    assert refused.status_code == 403
    assert refused.json()["required_role"] == "engineer"
    assert "commit" in refused.json()["detail"]
    assert await task_ids(api, auth) == started_before
    assert main_log(own_settings.git_dir) == before


async def test_an_engineers_commit_puts_the_stored_text_on_main_as_them(
    api: httpx.AsyncClient, auth: AuthHeaders, own_settings: Settings
) -> None:
    board = await dashboard_id(api, auth, HEALTHY)

    task = await document(api, auth, Role.engineer, board, commit="true")

    result = task["result"]
    assert result["committed"] is True
    newest_id, newest_author = main_log(own_settings.git_dir)[0]
    assert result["git_commit"] == newest_id
    assert newest_author == "engineer <engineer@sstools>"
    assert file_on_main(own_settings.git_dir, result["git_path"]) == result["markdown"]
    document_now = await stored(api, auth, board)
    assert (document_now["committed"], document_now["git_commit"]) == (True, newest_id)
    said = offline_answer(task)
    assert said is not None
    assert "сохранена в git" in said

    # The same text again: no new commit, and the document names the commit that holds it.
    again = await document(api, auth, Role.engineer, board, commit="true")
    assert again["result"]["git_commit"] == newest_id
    assert main_log(own_settings.git_dir)[0][0] == newest_id


# -- a model endpoint whose 401 quotes the Authorization header ------------------------------


def _key_leaks(text: str) -> bool:
    return any(part in text for part in (API_KEY, API_KEY[8:20], "7Qx9SECRET"))


@pytest.mark.parametrize("action", ["validate", "document"])
async def test_a_401_quoting_the_api_key_leaves_no_part_of_it_readable(
    own_settings: Settings, auth: AuthHeaders, action: str
) -> None:
    llm: ScriptedOpenAI

    def refuse(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        quoted = llm.authorization[-1]  # what this request carried, as a careless endpoint says
        message = f"Incorrect API key provided. Authorization: {quoted}"
        error = {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}
        return {"status": 401, "body": {"error": error}}

    llm = ScriptedOpenAI(refuse)
    with LiveServer(llm.app) as endpoint:
        with_model = own_settings.model_copy(
            update={
                "llm_base_url": f"{endpoint.url}/v1",
                "llm_model": "scripted",
                "llm_api_key": SecretStr(API_KEY),
            }
        )
        with LiveServer(create_app(with_model)) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as api:
                board = await dashboard_id(api, auth, ARCHIVE if action == "validate" else HEALTHY)
                started = await api.post(
                    f"/api/dashboards/{board}/{action}",
                    params={"env_id": ENV},
                    headers=auth(Role.analyst),
                )
                assert started.status_code == 202, started.text
                task = await wait_for_task(api, auth, started.json()["id"])
                read_back = "validation" if action == "validate" else "documentation"
                row = await api.get(
                    f"/api/dashboards/{board}/{read_back}",
                    params={"env_id": ENV},
                    headers=auth(Role.analyst),
                )

    assert llm.authorization  # the endpoint did get (and quote) the key
    assert set(llm.authorization) == {f"Bearer {API_KEY}"}
    assert task["status"] == "succeeded", task["error"]
    assert row.status_code == 200, row.text
    assert not _key_leaks(json.dumps(task)), task
    assert not _key_leaks(row.text), row.text
    # The class and the status, as the chat path logs them: enough to know the key is wrong.
    if action == "validate":
        review = row.json()["review"]
        assert re.fullmatch(
            r"модель не ответила пригодно \(\w*AuthenticationError \(HTTP 401\)\): "
            r"только автоматические проверки",
            review,
        ), review
    else:
        error = task["result"]["model_error"]
        assert re.fullmatch(r"\w*AuthenticationError \(HTTP 401\)", error), error
        assert row.json()["author"] == "template"


# -- through the agent: the model asks for the commit (as an injected document would make it) ---


@pytest.mark.parametrize("role", [Role.analyst, Role.engineer])
async def test_a_models_commit_request_needs_an_engineer_and_their_approval(
    own_settings: Settings, auth: AuthHeaders, role: Role
) -> None:
    model = ScriptedChatModel(
        script=call_tool("run_llm_documentation", {"commit": True}, text="Готово.")
    )
    with LiveServer(create_app(own_settings, chat_model=model)) as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as api:
            board = await dashboard_id(api, auth, HEALTHY)
            before = main_log(own_settings.git_dir)
            cid = (await api.post("/api/agent/conversations", headers=auth(role))).json()["id"]
            context = {
                "contextVersion": 1,
                "objectType": "dashboard",
                "objectId": str(board),
                "objectName": HEALTHY,
                "envId": ENV,
                "route": f"/dashboards/{board}",
            }
            await api.post(
                f"/api/agent/conversations/{cid}/messages",
                json={"text": "задокументируй этот дашборд", "uicontext": context},
                headers=auth(role),
            )
            events = await read_events(api, cid, auth(role))
            if role is Role.analyst:
                assert "permission_denied" in types(events), events
                assert "confirm_required" not in types(events)
                assert main_log(own_settings.git_dir) == before
                return
            card = events[-1]
            assert card["type"] == "confirm_required", events
            assert card["decision"]["prompt"] == "Изменения в git-репозитории"
            assert main_log(own_settings.git_dir) == before  # nothing before the decision
            decided = await api.post(
                f"/api/agent/conversations/{cid}/confirmations/{card['confirmation_id']}",
                json={"decision": "approve"},
                headers=auth(role),
            )
            assert decided.status_code == 200, decided.text
            after = await read_events(api, cid, auth(role), last_event_id=card["_id"])
            (result,) = [event for event in after if event["type"] == "tool_result"]
            task = await wait_for_task(api, auth, result["task_id"])
    assert task["status"] == "succeeded", task["error"]
    assert task["result"]["committed"] is True
    assert main_log(own_settings.git_dir)[0] == (
        task["result"]["git_commit"],
        "engineer <engineer@sstools>",
    )
