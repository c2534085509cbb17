"""One ``tools/call`` from an MCP host: checked as the chat checks a model's call, a read run at
once, a write held on the server for its person's word.

A write whose route applies a plan (deploy, migration, rollback, restore) or a change the
two-person rule covers (a new dataset, DML) is sent with :data:`HOLD_HEADER`: the route makes
its plan, checks it, and stores the write as a request of the caller's
(``write_requests``, ``awaiting_first``) instead of running it. The person's word then decides
that stored request, through the host's elicitation when it has one, else on its page
``/approvals/<id>``; the decision route runs exactly the approved plan, once, and where the
stage needs two people it waits for a second. Writes no such route covers (a backup, a branch, a
commit) only add; they run on the person's word through elicitation and are refused without it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from mcp import types
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sstools import texts as core_texts
from sstools.agent.card.impact import impact_text
from sstools.agent.executor import ToolExecutor, ToolResult
from sstools.agent.invocation import Refused, ToolCall, check_call
from sstools.agent.tools import CATALOGUE, ApprovedPlan, ToolArgs, ToolKind, ToolSpec
from sstools.agent.tools.deploys import is_dry_run
from sstools.auth.tokens import Caller
from sstools.environments import EnvironmentRegistry
from sstools.errors import SstoolsError
from sstools.mcp_face.tools import PlaceInvalid, SplitCall, selection_for, split_call
from sstools.storage import audit
from sstools.texts import mcp as texts

# Routes that hold a write for its person when asked with the hold header (second_person).
HELD_BY_ROUTE = frozenset(
    {
        "deploy_dashboard",
        "execute_migration",
        "rollback_deploy",
        "restore_backup",
        "superset_create_dataset",
        "superset_execute_sql",
    }
)
_REQUEST_ID = 32  # a write request's id: uuid4().hex, as a task's

Word = Literal["accept", "decline", "cancel"]
# Asks the person through the host (elicitation); None where the host cannot ask.
Asker = Callable[[str], Awaitable[Word]]


class UnknownTool(SstoolsError):
    """No such tool for this host: an MCP error naming it, not a tool's result."""


@dataclass(frozen=True)
class Face:
    """What a call needs of the app: its executor (holding writes), environments, audit, links."""

    executor: ToolExecutor
    environments: EnvironmentRegistry
    sessions: async_sessionmaker[AsyncSession]
    base_url: str  # where a person opens a request's page


@dataclass(frozen=True)
class Checked:
    """A call the guard cleared, with who asked it, how, and whether the host can ask them."""

    face: Face
    caller: Caller
    token: str
    tool: ToolSpec
    args: ToolArgs
    split: SplitCall
    ask: Asker | None


def _said(
    text: str, *, error: bool = False, data: dict[str, Any] | None = None
) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structuredContent=data,
        isError=error,
    )


def _of_result(result: ToolResult) -> types.CallToolResult:
    if result.outcome.value != "ok":
        return _said(result.message or result.content, error=True)
    return _said(result.content)


def _detail(answer: Any) -> str:
    detail = answer.get("detail") if isinstance(answer, dict) else None
    if isinstance(detail, dict):
        detail = detail.get("message")
    if isinstance(detail, list):
        detail = "; ".join(
            f"{'.'.join(map(str, one.get('loc', [])[1:]))}: {one.get('msg')}"
            for one in detail
            if isinstance(one, dict)
        )
    return str(detail or texts.NO_PLAN_ANSWER)


async def call(
    face: Face, caller: Caller, token: str, name: str, arguments: dict[str, Any], ask: Asker | None
) -> types.CallToolResult:
    """The call's result; :class:`UnknownTool` when the host named no tool of this server."""
    tool = CATALOGUE.get(name)
    selection = selection_for(caller.role)
    if tool is None or (tool.build is None):
        raise UnknownTool(texts.UNKNOWN_TOOL.format(tool=name))
    try:
        split = split_call(tool, arguments)
    except PlaceInvalid as exc:
        return _said(texts.BAD_PLACE.format(problems=exc), error=True)
    if tool.name == "get_task_status" and (held := await _held_status(face, split, token)):
        return held
    verdict = check_call(
        ToolCall(id="mcp", name=name, args=split.args),
        caller.role,
        selection,
        split.scope,
        face.environments,
        confirm_reads=False,
    )
    if isinstance(verdict, Refused):
        return _said(verdict.message, error=True)
    checked = Checked(face, caller, token, tool, verdict.args, split, ask)
    if tool.kind_for(verdict.args) is not ToolKind.write or is_dry_run(verdict.args):
        return await _run(checked)
    if tool.name in HELD_BY_ROUTE:
        return await _held_write(checked)
    return await _asked_write(checked)


async def _run(call: Checked) -> types.CallToolResult:
    try:
        result = await call.face.executor.execute(
            call.tool, call.args, call.split.scope, token=call.token, username=call.caller.username
        )
    except SstoolsError as exc:  # the arguments say too little (no id, no environment)
        return _said(str(exc), error=True)
    return _of_result(result)


async def _held_status(face: Face, split: SplitCall, token: str) -> types.CallToolResult | None:
    """A held write's request, by the id its call answered: where it stands and its task."""
    request_id = split.args.get("task_id")
    if not isinstance(request_id, str) or len(request_id) != _REQUEST_ID:
        return None
    status, answer = await face.executor.relay(
        "GET", f"/api/write-requests/{request_id}", None, token
    )
    if status != 200 or not isinstance(answer, dict):
        return None  # not a request: a task's id
    return _said(json.dumps(answer, ensure_ascii=False), data=answer)


async def _held_write(call: Checked) -> types.CallToolResult:
    face, token, tool, args = call.face, call.token, call.tool, call.args
    scope = call.split.scope
    impact = texts.UNKNOWN_IMPACT
    try:
        if tool.preview is not None:
            preview = await face.executor.preview(tool.preview(args, scope), token)
            plan = preview.plan
            if plan is None or plan.digest is None:
                problem = preview.problem or texts.NO_PLAN_ANSWER
                return _said(texts.NO_PLAN.format(problem=problem), error=True)
            scope = scope.model_copy(update={"approved_plan": ApprovedPlan(digest=plan.digest)})
            impact = impact_text(plan)
        request = tool.build(args, scope) if tool.build else None
    except SstoolsError as exc:
        return _said(str(exc), error=True)
    assert request is not None
    status, answer = await face.executor.relay(
        request.method, request.path, request.json_body, token, params=request.params
    )
    await _audit(call, "held" if status == 202 else str(status))
    if status >= 400 or not isinstance(answer, dict):
        return _said(texts.REFUSED.format(detail=_detail(answer)), error=True)
    if answer.get("status") != "awaiting_first":  # a route that did not hold: what it did
        return _said(json.dumps(answer, ensure_ascii=False), data=answer)
    request_id = str(answer["id"])
    link = f"{face.base_url.rstrip('/')}/approvals/{request_id}"
    if call.ask is None:
        data = {"status": "approval_needed", "request_id": request_id, "link": link}
        return _said(texts.NEEDS_APPROVAL.format(link=link, id=request_id), data=data)
    env = face.environments.get(str(answer.get("env_id")))
    message = texts.CONFIRM.format(
        title=answer.get("title", tool.title),
        env=env.name if env else answer.get("env_id"),
        stage=core_texts.STAGES.get(env.stage.value, env.stage.value) if env else "?",
        impact=impact,
        objects=", ".join(f"«{one}»" for one in answer.get("objects") or []) or "—",
        digest=str(answer.get("digest", ""))[:12],
    )
    word = await call.ask(message)
    decision = (
        {"decision": "approve"}
        if word == "accept"
        else {
            "decision": "deny",
            "reason": texts.DECLINED_REASON,
        }
    )
    status, decided = await face.executor.relay(
        "POST", f"/api/write-requests/{request_id}", decision, token
    )
    if word != "accept":
        return _said(texts.DECLINED, data={"status": "declined", "request_id": request_id})
    if status != 200 or not isinstance(decided, dict):
        return _said(texts.REFUSED.format(detail=_detail(decided)), error=True)
    return _decided(decided, request_id)


def _decided(view: dict[str, Any], request_id: str) -> types.CallToolResult:
    data = {"status": view.get("status"), "request_id": request_id, "task_id": view.get("task_id")}
    if view.get("status") == "awaiting_second":
        return _said(str(view.get("message")), data=data)
    if view.get("task_id"):
        return _said(texts.STARTED.format(task_id=view["task_id"]), data=data)
    return _said(texts.DONE, data=data)


async def _asked_write(call: Checked) -> types.CallToolResult:
    """A write that only adds, asked of its person through the host, then run once."""
    title = call.tool.title
    if call.ask is None:
        await _audit(call, "refused_no_elicitation")
        return _said(texts.NEEDS_ELICITATION.format(title=title), error=True)
    shown = json.dumps(call.args.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
    word = await call.ask(texts.CONFIRM_CALL.format(title=title, arguments=shown))
    if word != "accept":
        await _audit(call, "declined")
        return _said(texts.DECLINED, data={"status": "declined"})
    return await _run(call)


async def _audit(call: Checked, outcome: str) -> None:
    async with call.face.sessions() as session:
        await audit.record(
            session,
            action="tool_call",
            outcome=outcome,
            username=call.caller.username,
            env_id=call.split.scope.env_id,
            tool=call.tool.name,
            kind="write",
            face="mcp",
        )
