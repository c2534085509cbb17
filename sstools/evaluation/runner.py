"""Run scenarios end to end through the real API: a running sstools, or one started in process.

In process (the default) the app is served by uvicorn on a free loopback port with the
configured settings — the configured model (an OpenAI-compatible endpoint, or the offline
planner) and the configured Superset environments — but its own temporary database, checkpoints,
git repository, backup folder and JWT secret, with one temporary user per role. Nothing of the
operator's is written; every write the agent proposes is denied.
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from pydantic import BaseModel, SecretStr

from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.evaluation._api import AgentApi, ApiError, Session
from sstools.evaluation.grading import Transcript, grade
from sstools.evaluation.report import Report, ScenarioResult, Status
from sstools.evaluation.scenarios import Scenario


class Credentials(BaseModel):
    username: str
    password: SecretStr


CredentialsByRole = Mapping[Role, Credentials]


class Target(BaseModel):
    """A server to run against: its base URL and a user for each role it has credentials for."""

    url: str
    credentials: dict[Role, Credentials]
    description: str  # for the report: which server, which environments


def model_name(settings: Settings) -> str:
    """The configured model in words; the endpoint without any credentials in its URL."""
    if not settings.llm_base_url:
        return "offline planner (no SSTOOLS_LLM_BASE_URL)"
    url = httpx.URL(settings.llm_base_url)
    port = f":{url.port}" if url.port else ""
    return f"{settings.llm_model} at {url.scheme}://{url.host}{port}{url.path}"


def router_name(settings: Settings) -> str:
    """The router narrows what the model is offered, so it is part of what is compared."""
    if settings.router == "off":
        return "off"
    return f"{settings.router}, K={settings.router_k}"


DEFAULT_TURN_TIMEOUT_S = 120.0


def turn_timeout_s(settings: Settings) -> float:
    """How long a graded message may take, from the model's own limits, so that the app's
    timeouts end a slow model's turn (its ``llm_error`` graded) before the harness gives up.

    A turn is at least a model request, the tool it calls and a request after it; a request
    waits up to ``llm_timeout_s`` for each of its ``llm_retries + 1`` attempts. Never under
    120 s; with no model (the offline planner) 120 s.
    """
    if not settings.llm_base_url:
        return DEFAULT_TURN_TIMEOUT_S
    request = settings.llm_timeout_s * (settings.llm_retries + 1)
    return max(DEFAULT_TURN_TIMEOUT_S, 2 * request + settings.tool_timeout_s)


def isolated_settings(settings: Settings, folder: Path) -> Settings:
    """The configured settings with every piece of state moved into ``folder``."""
    return settings.model_copy(
        update={
            "database_url": f"sqlite:///{folder / 'sstools.db'}",
            "checkpoints_file": folder / "checkpoints.db",
            "git_dir": folder / "git",
            "git_remote": None,
            "backup_dir": folder / "backups",
            "tasks_database_url": None,  # DBOS beside the temporary SQLite database
            "jwt_secret": SecretStr(secrets.token_urlsafe(48)),
            "jwt_secret_file": folder / "jwt-secret",
            "tools_base_url": None,  # the tools call this very app, in process
        }
    )


async def _temporary_users(settings: Settings) -> dict[Role, Credentials]:
    from sstools.auth.users import add_user
    from sstools.storage.db import command_session

    credentials = {
        role: Credentials(
            username=f"eval-{role.value}", password=SecretStr(secrets.token_urlsafe(24))
        )
        for role in Role
    }
    async with command_session(settings.database_url) as session:
        for role, user in credentials.items():
            await add_user(session, user.username, role, user.password.get_secret_value())
    return credentials


@asynccontextmanager
async def in_process(settings: Settings) -> AsyncIterator[Target]:
    """The app with ``settings`` (its state in a temporary folder) on a free loopback port."""
    from sstools.app import create_app
    from sstools.testing import LiveServer

    with tempfile.TemporaryDirectory(prefix="sstools-eval-") as folder:
        own = isolated_settings(settings, Path(folder))
        credentials = await _temporary_users(own)
        with LiveServer(create_app(own)) as server:
            yield Target(
                url=server.url,
                credentials=credentials,
                description=f"sstools in process, environments {settings.environments_file}",
            )


class Runner:
    """Signs in once per role, then runs each scenario in a conversation of its own."""

    def __init__(self, api: AgentApi, credentials: CredentialsByRole) -> None:
        self._api = api
        self._credentials = credentials
        self._sessions: dict[Role, Session] = {}

    async def session(self, role: Role) -> Session | None:
        if role not in self._sessions and role in self._credentials:
            user = self._credentials[role]
            session = await self._api.sign_in(user.username, user.password.get_secret_value())
            if session.role != role.value:
                raise ApiError(f"user {user.username!r} has role {session.role}, not {role.value}")
            self._sessions[role] = session
        return self._sessions.get(role)

    async def run(self, scenario: Scenario) -> ScenarioResult:
        result = ScenarioResult(
            id=scenario.id,
            kind=scenario.kind,
            source=scenario.source,
            role=scenario.role.value,
            status=Status.skipped,
        )
        if scenario.expect.todo is not None:  # from a 👎: nobody has said what is right yet
            result.reasons = [f"expectation not filled in yet: {scenario.expect.todo}"]
            return result
        session = await self.session(scenario.role)
        if session is None:
            result.reasons = [f"no credentials for role {scenario.role.value}"]
            return result
        try:
            transcript = await self._converse(session, scenario)
        except (ApiError, httpx.HTTPError) as exc:  # this scenario failed; the next may not
            result.status, result.reasons = Status.failed, [str(exc) or type(exc).__name__]
            return result
        result.reasons = grade(scenario.expect, transcript)
        result.status = Status.failed if result.reasons else Status.passed
        result.tools_called = transcript.called
        result.answer = transcript.answer
        return result

    async def _converse(self, session: Session, scenario: Scenario) -> Transcript:
        conversation_id = await self._api.open_conversation(session)
        try:
            cursor = 0
            for turn in scenario.earlier:
                uicontext = await self._api.uicontext(session, turn.context)
                earlier = await self._api.ask(
                    session, conversation_id, turn.message, uicontext, cursor
                )
                cursor = earlier.cursor
            uicontext = await self._api.uicontext(session, scenario.context)
            offered = None
            if scenario.expect.offered is not None:
                offered = await self._api.offered_tools(session, uicontext)
            turn_events = await self._api.ask(
                session, conversation_id, scenario.message, uicontext, cursor
            )
        finally:
            await self._api.close_conversation(session, conversation_id)
        return Transcript(events=turn_events.events, offered=offered, complete=turn_events.complete)


async def run_scenarios(
    target: Target,
    scenarios: list[Scenario],
    *,
    model: str,
    router: str | None = None,
    turn_timeout_s: float = DEFAULT_TURN_TIMEOUT_S,
) -> Report:
    """Every scenario against ``target``, one after another (the API caps runs per user)."""
    async with httpx.AsyncClient(base_url=target.url, timeout=turn_timeout_s) as client:
        runner = Runner(AgentApi(client, turn_timeout_s=turn_timeout_s), target.credentials)
        results = [await runner.run(scenario) for scenario in scenarios]
    return Report(model=model, router=router, target=target.description, results=results)
