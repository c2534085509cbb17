"""The agent graph: agent → assess → confirm → tools → agent (LangGraph, checkpointed).

- ``agent`` calls the model with only the offered tools.
- ``assess`` checks each call at invocation (AGTL-FR-005): exact name, arguments, role, context;
  then decides the risk and, for writes, fetches the read-only impact preview.
- ``confirm`` does nothing but ``interrupt()``: LangGraph re-runs a node from its start on resume,
  so nothing with a side effect may sit before it in the same node.
- ``tools`` runs one call through the executor.

Events a step produces travel in its update under ``emit``; the runtime stores and streams them.
One call is assessed at a time, so there is at most one confirmation per interrupt.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer, interrupt
from pydantic import ValidationError

from sstools.agent import texts
from sstools.agent.context import UIContext, prompt_block
from sstools.agent.events import (
    Cancelled,
    ErrorEvent,
    MessageEvent,
    PermissionDenied,
    ToolCallEvent,
    ToolResultEvent,
    encode,
)
from sstools.agent.executor import Outcome, ToolExecutor, ToolResult
from sstools.agent.guardrails import decide, impact_text
from sstools.agent.selection import HiddenBecause, Selection, select_tools
from sstools.agent.tools import CATALOGUE, CallScope, ToolArgs, ToolArgumentError, ToolSpec
from sstools.auth.roles import Role
from sstools.environments import EnvironmentRegistry

RECURSION_LIMIT = 40

SYSTEM_PROMPT = """Ты — агент sstools рядом с Apache Superset (окружения: {environments}).
Отвечай по-русски, кратко и по делу. Используй инструменты, чтобы узнать факты; не выдумывай.
«Этот дашборд», «этот датасет» — объект из контекста интерфейса ниже: бери его id и окружение
оттуда, не спрашивая. Изменения выполняются только после подтверждения человеком.

{context}"""


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    context: dict[str, Any] | None
    queue: list[dict[str, Any]]
    current: dict[str, Any] | None
    emit: list[dict[str, Any]]
    halted: bool


@dataclass(frozen=True)
class RunContext:
    """Per run, never checkpointed: the caller's identity and token."""

    username: str
    role: Role
    token: str
    run_id: str


def args_hash(args: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(args, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def storable(value: Any) -> Any:
    """Model output as the checkpointer can store it: integers beyond 64 bits become strings."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else str(value)
    if isinstance(value, dict):
        return {str(key): storable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [storable(item) for item in value]
    return value


def _context(state: AgentState) -> UIContext | None:
    raw = state.get("context")
    return UIContext.model_validate(raw) if raw else None


def _scope(context: UIContext | None) -> CallScope:
    if context is None:
        return CallScope()
    return CallScope(
        env_id=context.env_id,
        object_type=context.object_type,
        object_id=int(context.object_id) if context.object_id else None,
    )


def _last_human_text(state: AgentState) -> str:
    for message in reversed(state.get("messages", [])):
        if isinstance(message, HumanMessage):
            return str(message.content)
    return ""


def _capabilities(selection: Selection) -> dict[str, Any]:
    return {
        "title": texts.CAPABILITIES_TITLE,
        "available": [
            {
                "tool": name,
                "title": CATALOGUE[name].title,
                "what": CATALOGUE[name].description.splitlines()[0],
            }
            for name in selection.offered
        ],
        "hidden": [
            {"tool": name, "why": hidden.detail} for name, hidden in selection.hidden.items()
        ],
    }


class AgentGraph:
    def __init__(
        self,
        *,
        model: BaseChatModel,
        executor: ToolExecutor,
        environments: EnvironmentRegistry,
        confirm_reads: bool,
    ) -> None:
        self._model = model
        self._executor = executor
        self._environments = environments
        self._confirm_reads = confirm_reads

    def selection(self, state: AgentState, role: Role) -> Selection:
        return select_tools(role, _context(state), message=_last_human_text(state))

    def compile(self, checkpointer: Checkpointer) -> CompiledStateGraph[Any, Any, Any, Any]:
        graph = StateGraph(AgentState, context_schema=RunContext)
        graph.add_node("agent", self._agent)
        graph.add_node("assess", self._assess)
        graph.add_node("confirm", self._confirm)
        graph.add_node("tools", self._tools)
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", self._after_agent, ["assess", END])
        graph.add_conditional_edges(
            "assess", self._after_assess, ["confirm", "tools", "assess", "agent"]
        )
        graph.add_conditional_edges("confirm", self._after_confirm, ["tools", END])
        graph.add_conditional_edges("tools", self._after_tools, ["assess", "agent", END])
        return graph.compile(checkpointer=checkpointer)

    # -- nodes ----------------------------------------------------------------------------

    async def _agent(self, state: AgentState, runtime: Runtime[RunContext]) -> AgentState:
        context = _context(state)
        selection = self.selection(state, runtime.context.role)
        environments = ", ".join(
            f"{env.id} ({env.stage.value})" for env in self._environments.values()
        )
        system = SYSTEM_PROMPT.format(environments=environments, context=prompt_block(context))
        if context is None or context.env_id is None:
            # Environment-bound tools are hidden; the model should ask rather than guess.
            system += f"\n\nОкружение не выбрано: {texts.NEEDS_ENVIRONMENT} для работы с Superset."
        tools = [CATALOGUE[name].schema() for name in selection.offered]
        bound = self._model.bind_tools(tools) if tools else self._model
        reply = await bound.ainvoke([SystemMessage(system), *state.get("messages", [])])
        assert isinstance(reply, AIMessage)
        reply.tool_calls = [{**call, "args": storable(call["args"])} for call in reply.tool_calls]
        emit = []
        if reply.text:
            emit.append(encode(MessageEvent(text=reply.text, run_id=runtime.context.run_id)))
        queue = [
            {
                "id": call["id"] or f"call_{uuid.uuid4().hex[:12]}",
                "name": call["name"],
                "args": call["args"],
            }
            for call in reply.tool_calls
        ]
        return {"messages": [reply], "queue": queue, "current": None, "emit": emit, "halted": False}

    def _refuse(
        self,
        call: dict[str, Any],
        message: str,
        emit: list[dict[str, Any]],
        rest: list[dict[str, Any]],
        run_id: str,
    ) -> AgentState:
        emit.append(
            encode(
                ToolResultEvent(
                    tool=call["name"],
                    call_id=call["id"],
                    outcome="refused",
                    message=message,
                    run_id=run_id,
                )
            )
        )
        return {
            "messages": [
                ToolMessage(
                    content=json.dumps({"error": message}, ensure_ascii=False),
                    tool_call_id=call["id"],
                    name=call["name"],
                )
            ],
            "queue": rest,
            "current": None,
            "emit": emit,
        }

    async def _assess(self, state: AgentState, runtime: Runtime[RunContext]) -> AgentState:
        call, *rest = state["queue"]
        run_id = runtime.context.run_id
        role = runtime.context.role
        emit = [
            encode(
                ToolCallEvent(
                    tool=call["name"], call_id=call["id"], args=call["args"], run_id=run_id
                )
            )
        ]
        selection = self.selection(state, role)
        # Exact names only: a case or Unicode look-alike is an unknown tool, never "the nearest".
        tool = CATALOGUE.get(call["name"])
        if tool is None:
            available = ", ".join(selection.offered)
            return self._refuse(
                call,
                texts.UNKNOWN_TOOL.format(tool=call["name"], available=available),
                emit,
                rest,
                run_id,
            )
        # The role first: a tool the role may never use is denied whatever its arguments.
        required = tool.min_role
        args: ToolArgs | None = None
        if role.allows(required):
            try:
                args = tool.args_model.model_validate(call["args"])
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
                )
                return self._refuse(
                    call,
                    texts.BAD_ARGUMENTS.format(tool=tool.name, problems=problems),
                    emit,
                    rest,
                    run_id,
                )
            required = tool.required_role(args)  # per call: DML needs more than a SELECT
        if args is None or not role.allows(required):
            message = texts.PERMISSION_DENIED.format(tool=tool.name, roles=required.value)
            emit.append(
                encode(
                    PermissionDenied(
                        tool=tool.name,
                        call_id=call["id"],
                        required_roles=[required.value],
                        message=message,
                        run_id=run_id,
                    )
                )
            )
            return self._refuse(call, message, emit, rest, run_id)
        hidden = selection.hidden.get(tool.name)
        if hidden is not None and hidden.reason is not HiddenBecause.role:
            return self._refuse(
                call,
                texts.NOT_OFFERED.format(tool=tool.name, reason=hidden.detail),
                emit,
                rest,
                run_id,
            )
        scope = _scope(_context(state))
        env_id = tool.environment(args, scope)
        if env_id is not None and env_id not in self._environments:
            return self._refuse(call, f"неизвестное окружение «{env_id}»", emit, rest, run_id)
        impact = None
        decision = decide(tool, args, env_id, self._environments, confirm_reads=self._confirm_reads)
        if decision.needs_confirmation and tool.preview is not None:
            try:
                preview = await self._executor.preview(
                    tool.preview(args, scope), runtime.context.token
                )
            except ToolArgumentError:
                preview = None
            impact = impact_text(preview)
            decision = decision.model_copy(update={"impact": impact})
        current = {
            "call": call,
            "decision": decision.model_dump(mode="json"),
            "confirmation_id": f"cf_{uuid.uuid4().hex}",
            "args_hash": args_hash(call["args"]),
            "approved": not decision.needs_confirmation,
        }
        return {"queue": rest, "current": current, "emit": emit}

    def _confirm(self, state: AgentState) -> AgentState:
        current = state["current"]
        assert current is not None
        answer = interrupt(
            {
                "confirmation_id": current["confirmation_id"],
                "call": current["call"],
                "decision": current["decision"],
                "args_hash": current["args_hash"],
            }
        )
        call = current["call"]
        tool = CATALOGUE[call["name"]]
        # LangGraph hands back whatever resume value it got: accept exactly this card's answer.
        valid = (
            isinstance(answer, dict)
            and answer.get("decision") in ("approve", "deny")
            and answer.get("confirmation_id") == current["confirmation_id"]
        )
        if valid and answer.get("args_hash") != args_hash(call["args"]):
            reason = texts.CANCELLED_MISMATCH.format(tool=tool.title)
        elif valid and answer["decision"] == "approve":
            return {"current": {**current, "approved": True}, "emit": [], "halted": False}
        elif valid and answer.get("reason") == "expired":
            reason = texts.CANCELLED_EXPIRED.format(tool=tool.title)
        elif valid:
            reason = texts.CANCELLED_BY_USER.format(tool=tool.title)
        else:
            reason = texts.CANCELLED_MISMATCH.format(tool=tool.title)
        text = texts.OPERATION_CANCELLED.format(reason=reason)
        not_run = [call, *state.get("queue", [])]
        return {
            "messages": [
                *(
                    ToolMessage(
                        content=json.dumps({"cancelled": text}, ensure_ascii=False),
                        tool_call_id=item["id"],
                        name=item["name"],
                    )
                    for item in not_run
                ),
                AIMessage(content=text),
            ],
            "queue": [],
            "current": None,
            "halted": True,
            "emit": [
                encode(
                    Cancelled(
                        tool=tool.name,
                        confirmation_id=current["confirmation_id"],
                        reason=reason,
                        message=text,
                    )
                ),
                encode(MessageEvent(text=text)),
            ],
        }

    async def _tools(self, state: AgentState, runtime: Runtime[RunContext]) -> AgentState:
        current = state["current"]
        assert current is not None
        assert current["approved"]
        call = current["call"]
        tool = CATALOGUE[call["name"]]
        args = tool.args_model.model_validate(call["args"])
        run_id = runtime.context.run_id
        result = await self._run(tool, args, state, runtime, current["confirmation_id"])
        emit = [
            encode(
                ToolResultEvent(
                    tool=tool.name,
                    call_id=call["id"],
                    outcome=result.outcome.value,
                    message=result.message,
                    run_id=run_id,
                )
            )
        ]
        halted = False
        if result.outcome is Outcome.session_expired:
            emit.append(
                encode(
                    ErrorEvent(code="session_expired", message=texts.SESSION_EXPIRED, run_id=run_id)
                )
            )
            halted = True
        elif result.outcome is Outcome.permission_denied:
            emit.append(
                encode(
                    PermissionDenied(
                        tool=tool.name,
                        call_id=call["id"],
                        required_roles=result.required_roles,
                        message=result.message or "",
                        run_id=run_id,
                    )
                )
            )
        elif result.outcome in (Outcome.timeout, Outcome.unknown):
            emit.append(
                encode(ErrorEvent(code="timeout", message=result.message or "", run_id=run_id))
            )
        message = ToolMessage(content=result.content, tool_call_id=call["id"], name=tool.name)
        return {"messages": [message], "current": None, "emit": emit, "halted": halted}

    async def _run(
        self,
        tool: ToolSpec,
        args: ToolArgs,
        state: AgentState,
        runtime: Runtime[RunContext],
        key: str,
    ) -> ToolResult:
        if tool.build is None:  # show_capabilities: answered from the selection itself
            selection = self.selection(state, runtime.context.role)
            content = json.dumps(_capabilities(selection), ensure_ascii=False)
            return ToolResult(outcome=Outcome.ok, content=content)
        try:
            return await self._executor.execute(
                tool,
                args,
                _scope(_context(state)),
                token=runtime.context.token,
                username=runtime.context.username,
                idempotency_key=key,
            )
        except ToolArgumentError as exc:
            message = str(exc)
            return ToolResult(
                outcome=Outcome.error,
                message=message,
                content=json.dumps({"error": message}, ensure_ascii=False),
            )

    # -- routing --------------------------------------------------------------------------

    @staticmethod
    def _after_agent(state: AgentState) -> str:
        return "assess" if state.get("queue") else END

    @staticmethod
    def _after_assess(state: AgentState) -> str:
        current = state.get("current")
        if current is not None:
            return "tools" if current["approved"] else "confirm"
        return "assess" if state.get("queue") else "agent"

    @staticmethod
    def _after_confirm(state: AgentState) -> str:
        return END if state.get("halted") else "tools"

    @staticmethod
    def _after_tools(state: AgentState) -> str:
        if state.get("halted"):
            return END
        return "assess" if state.get("queue") else "agent"
