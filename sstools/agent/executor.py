"""Tool invocation over HTTP with the user's token (AGTL-FR-002…004).

Reads: one retry after a fixed delay on 5xx or a connection error. Writes: never retried, so
each approved write is sent once (no ``Idempotency-Key``: no route would read one). A timeout
never hangs the chat: a read reports it, a write reports that its status is unknown.
401 → session expired (no retry), 403 → permission denied, 429 → over a cap, the server's reason.
Every call lands in the audit log with its attempts, transient failures, latency, and raw and
summarised sizes (``sstools report`` reads them), and in the Prometheus metrics.
The route is checked as sent: a request whose path the client or server would read otherwise
than it was built (dot segments, an encoded slash, a ``?`` cut) is refused, never sent.
A dry run of a write (``dry_run: true``) sends the write's preview, never the write: it is a read
(retried, audited as one, starting no task) whose answer is the plan.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Any

import httpx
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_fixed

from sstools import metrics
from sstools.agent import explain
from sstools.agent.card.plan import PlanView
from sstools.agent.figures import Figure, figures
from sstools.agent.summarize import for_model, summarize
from sstools.agent.texts import tools as tool_texts
from sstools.agent.tools import (
    CallScope,
    ToolArgs,
    ToolArgumentError,
    ToolKind,
    ToolRequest,
    ToolSpec,
)
from sstools.agent.tools.deploys import is_dry_run
from sstools.agent.tools.paths import is_inert
from sstools.errors import SstoolsError
from sstools.storage import audit
from sstools.texts import transport


class Outcome(StrEnum):
    ok = "ok"
    error = "error"
    timeout = "timeout"
    unknown = "unknown"  # a write whose effect we cannot know (timed out or cut off)
    permission_denied = "permission_denied"
    session_expired = "session_expired"
    refused = "refused"  # never sent: the built route would not have been the one reached


class ToolResult(BaseModel):
    outcome: Outcome
    content: str  # what the model reads: JSON, shaped per tool, at most summarize.LIMIT characters
    message: str | None = None  # what a person reads, when it went wrong
    status: int | None = None
    required_roles: list[str] = []
    attempts: int = 0
    latency_ms: int = 0
    raw_size: int = 0
    task_id: str | None = None  # the task a task-starting tool started (followed by the page)
    figures: list[Figure] = []  # charts of the answer as it came, for the page to draw


@dataclass(frozen=True)
class Preview:
    """A write's read-only plan, or why there is none: the server's words, or None when no
    answer came at all (the environment or the service did not answer)."""

    answer: dict[str, Any] | None = None
    problem: str | None = None

    @cached_property
    def plan(self) -> PlanView | None:
        """The answer read as a plan, once."""
        return PlanView.of(self.answer)


class _RouteChanged(SstoolsError):
    """The path as sent would not read as the path that was built."""


class _Transient(SstoolsError):
    """5xx or connection refused: worth one more try for a read."""

    def __init__(self, response: httpx.Response | None, cause: Exception | None = None) -> None:
        super().__init__(str(cause or response))
        self.response = response
        self.cause = cause


_REQUEST_PARTS = ("body", "query", "path", "header", "cookie")


def _field_problem(error: object) -> str:
    """``{loc: ["body", "sql"], msg}`` → ``sql: msg``; a refusal of the whole body is its msg."""
    if not isinstance(error, dict):
        return str(error)
    loc = [str(part) for part in error.get("loc") or []]
    if loc and loc[0] in _REQUEST_PARTS:
        loc = loc[1:]
    message = str(error.get("msg") or error.get("type") or "invalid")
    return f"{'.'.join(loc)}: {message}" if loc else message


def _detail(response: httpx.Response) -> str:
    """The server's reason in words: a validation list becomes ``field: problem; …``."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    detail = body.get("detail", body) if isinstance(body, dict) else body
    if isinstance(detail, list) and detail:
        return "; ".join(_field_problem(error) for error in detail)[:500]
    return str(detail)[:500]


def _error(outcome: Outcome, message: str, **extra: Any) -> ToolResult:
    return ToolResult(
        outcome=outcome, content=summarize({"error": message}), message=message, **extra
    )


class ToolExecutor:
    def __init__(
        self,
        *,
        base_url: str,
        timeout_s: float,
        sessions: async_sessionmaker[AsyncSession],
        transport: httpx.AsyncBaseTransport | None = None,
        retry_wait_s: float = 1.0,
        read_attempts: int = 2,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """``read_attempts=1`` turns the read retry off (the baseline ``bench/retries.py`` runs)."""
        self._http = httpx.AsyncClient(
            base_url=base_url, transport=transport, timeout=httpx.Timeout(timeout_s)
        )
        self._timeout_s = timeout_s
        self._retry_wait_s = retry_wait_s
        self._read_attempts = read_attempts
        self._sleep = sleep  # injectable, so tests assert the wait asked for without sleeping
        self._sessions = sessions
        self._headers: dict[str, str] = {}
        self.face: str | None = None  # the face its calls came through, in the audit (None: chat)

    def for_face(self, face: str, headers: dict[str, str]) -> ToolExecutor:
        """The same executor (and connection pool: closed by this one) for another face, whose
        requests carry ``headers`` and whose audit rows name it."""
        sibling = copy.copy(self)
        sibling.face = face
        sibling._headers = {**self._headers, **headers}
        return sibling

    async def aclose(self) -> None:
        await self._http.aclose()

    def _route_intact(self, built: str, sent: httpx.URL) -> bool:
        """Whether the server will route ``sent`` by exactly the segments that were built."""
        base = self._http.base_url.raw_path.split(b"?", 1)[0].rstrip(b"/")
        path = sent.raw_path.split(b"?", 1)[0]
        # Equal bytes: the client resolved no "..", cut nothing at "?" or "#", re-encoded nothing.
        if not built.startswith("/") or path != base + built.encode():
            return False
        # And each segment stays one once decoded: no "%2F", no "%2e%2e".
        return all(is_inert(segment) for segment in built[1:].split("/"))

    async def _send(self, request: ToolRequest, token: str) -> httpx.Response:
        headers = {**self._headers, "Authorization": f"Bearer {token}"}
        outgoing = self._http.build_request(
            request.method,
            request.path,
            params=request.params,
            json=request.json_body,
            headers=headers,
        )
        if not self._route_intact(request.path, outgoing.url):
            raise _RouteChanged(request.path)
        try:
            response = await self._http.send(outgoing)
        except httpx.ConnectError as exc:
            raise _Transient(None, exc) from exc
        if response.status_code >= 500:
            raise _Transient(response)
        return response

    async def preview(self, request: ToolRequest, token: str) -> Preview:
        """A read-only estimate before a confirmation card, or the server's reason it has none."""
        try:
            response = await self._send(request, token)
        except _Transient as exc:
            return Preview(problem=_detail(exc.response) if exc.response is not None else None)
        except (_RouteChanged, httpx.HTTPError):
            return Preview()
        if response.status_code != 200:
            return Preview(problem=_detail(response))
        try:
            answer = response.json()
        except ValueError:
            return Preview()
        return Preview(answer=answer) if isinstance(answer, dict) else Preview()

    async def read_json(
        self, path: str, params: dict[str, Any], token: str, *, timeout_s: float = 5.0
    ) -> Any:
        """A plain GET of the domain API with the person's token, as a tool sends it: the JSON
        answer, or None when it failed in any way (the offline planner's fleet listing, which
        asks back rather than fails without it). Not audited: it is no call of a tool."""
        request = self._http.build_request(
            "GET",
            path,
            params=params,
            headers={"Authorization": f"Bearer {token}"},
            timeout=min(timeout_s, self._timeout_s),
        )
        if not self._route_intact(path, request.url):
            return None
        try:
            response = await self._http.send(request)
            return response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            return None

    async def relay(
        self,
        method: str,
        path: str,
        body: Any,
        token: str,
        params: dict[str, str | int] | None = None,
    ) -> tuple[int, Any]:
        """A request of the domain API made on a person's behalf (their token), not by a tool:
        the status and the JSON answer (None when there is none). Not audited here: the domain
        route audits what it does."""
        request = self._http.build_request(
            method,
            path,
            json=body,
            params=params,
            headers={**self._headers, "Authorization": f"Bearer {token}"},
        )
        if not self._route_intact(path, request.url):
            raise ValueError(f"{path} is not a plain route")
        response = await self._http.send(request)
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, None

    async def execute(
        self,
        tool: ToolSpec,
        args: ToolArgs,
        scope: CallScope,
        *,
        token: str,
        username: str,
    ) -> ToolResult:
        assert tool.build is not None
        planning = is_dry_run(args)
        if planning:
            # Only the plan: the write's own request is never built, so it cannot be sent.
            if tool.preview is None:
                raise ToolArgumentError(tool_texts.NO_DRY_RUN.format(tool=tool.title))
            request = tool.preview(args, scope)
        else:
            request = tool.build(args, scope)
        write = tool.kind_for(args) is ToolKind.write and not planning
        title = tool_texts.DRY_RUN_TITLE.format(tool=tool.title) if planning else tool.title
        started = time.monotonic()
        attempts = 0
        transient_failures = 0
        result: ToolResult
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(1 if write else self._read_attempts),
                wait=wait_fixed(self._retry_wait_s),
                sleep=self._sleep,
                retry=retry_if_exception_type(_Transient),
                reraise=True,
            ):
                with attempt:
                    attempts += 1
                    try:
                        response = await self._send(request, token)
                    except _Transient:
                        transient_failures += 1
                        raise
            result = self._interpret(tool, args, response, title, starts_task=not planning)
        except _RouteChanged:
            attempts = 0  # nothing was sent
            result = _error(Outcome.refused, explain.route_refused(title))
        except httpx.TimeoutException:
            message = explain.no_answer(title, self._timeout_s, write=write)
            result = _error(Outcome.unknown if write else Outcome.timeout, message)
        except _Transient as exc:
            status = exc.response.status_code if exc.response is not None else None
            detail = (
                _detail(exc.response)
                if exc.response is not None
                else transport.reason(exc.cause or exc)
            )
            result = _error(Outcome.error, explain.failed(title, detail), status=status)
        except httpx.HTTPError as exc:  # cut off mid-way: a write may have happened
            message = (
                explain.no_answer(title, self._timeout_s, write=True)
                if write
                else explain.failed(title, transport.reason(exc))
            )
            result = _error(Outcome.unknown if write else Outcome.error, message)
        elapsed = time.monotonic() - started
        result.attempts = attempts
        result.latency_ms = int(elapsed * 1000)
        metrics.TOOL_CALLS.labels(tool=tool.name, outcome=result.outcome.value).inc()
        metrics.TOOL_SECONDS.labels(tool=tool.name).observe(elapsed)
        if attempts > 1:
            metrics.TOOL_RETRIES.labels(tool=tool.name).inc(attempts - 1)
        async with self._sessions() as session:
            await audit.record(
                session,
                action="tool_call",
                outcome=result.outcome.value,
                username=username,
                # Where it acts: a deploy's target, not the page it was asked from.
                env_id=tool.environment(args, scope) or scope.env_id,
                tool=tool.name,
                kind="write" if write else "read",
                attempts=attempts,
                transient_failures=transient_failures,
                latency_ms=result.latency_ms,
                status=result.status,
                raw_size=result.raw_size,
                summarized_size=len(result.content),
                **({"dry_run": True} if planning else {}),
                **({"face": self.face} if self.face else {}),
            )
        return result

    def _interpret(
        self,
        tool: ToolSpec,
        args: ToolArgs,
        response: httpx.Response,
        title: str,
        *,
        starts_task: bool,
    ) -> ToolResult:
        status = response.status_code
        if status < 300:
            payload = response.json() if response.content else {"status": "ok"}
            raw_size = len(response.text)  # characters, as the summary is counted
            started = tool.starts_task and starts_task and isinstance(payload, dict)
            task_id = payload.get("id") if started else None
            return ToolResult(
                outcome=Outcome.ok,
                content=for_model(tool, args, payload),
                figures=figures(tool.name, payload),
                status=status,
                raw_size=raw_size,
                task_id=task_id if isinstance(task_id, str) else None,
            )
        if status == 401:
            return _error(Outcome.session_expired, explain.session_expired(), status=status)
        if status == 403:
            body = response.json() if response.content else {}
            roles = (
                [body["required_role"]]
                if isinstance(body, dict) and body.get("required_role")
                else []
            )
            message = explain.permission_denied(title, roles)
            return _error(Outcome.permission_denied, message, status=status, required_roles=roles)
        detail = _detail(response)
        if status == 429:  # a cap on starts or streams: nothing ran; the reason says when to retry
            message = explain.rate_limited(title, detail)
            return _error(Outcome.error, message, status=status)
        return _error(Outcome.error, explain.failed(title, detail), status=status)
