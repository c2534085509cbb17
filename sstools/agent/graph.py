"""The agent graph: agent → assess → confirm → tools → agent (LangGraph, checkpointed).

- ``agent`` calls the model with only the offered tools.
- ``assess`` asks ``invocation.check_call`` whether the call may run (AGTL-FR-005) and, for a
  call that needs a card, fetches the read-only impact preview.
- ``confirm`` does nothing but ``interrupt()``: LangGraph re-runs a node from its start on resume,
  so nothing with a side effect may sit before it in the same node.
- ``tools`` runs one call through the executor.

Events a step produces travel in its update under ``emit``; the runtime stores and streams them.
One call is assessed at a time, so there is at most one confirmation per interrupt.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Annotated, Any, TypedDict

import structlog
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer, interrupt

from sstools.agent import step_messages, texts
from sstools.agent.capabilities import capabilities
from sstools.agent.context import UIContext, prompt_block
from sstools.agent.events import (
    ErrorEvent,
    MessageEvent,
    ToolCallEvent,
    encode,
)
from sstools.agent.executor import Outcome, ToolExecutor, ToolResult
from sstools.agent.guardrails import card_arguments, plan_impact
from sstools.agent.invocation import (
    NeedsConfirmation,
    PendingCall,
    Refused,
    ToolCall,
    args_hash,
    check_call,
    storable,
)
from sstools.agent.offer import ToolOffer, before_last_reply
from sstools.agent.run.context import RunContext
from sstools.agent.selection import Router, Selection
from sstools.agent.tools import CATALOGUE, CallScope, ToolArgs, ToolArgumentError, ToolSpec
from sstools.auth.roles import Role
from sstools.environments import EnvironmentRegistry

RECURSION_LIMIT = 40

_log = structlog.get_logger("sstools.agent")

SYSTEM_PROMPT = """Ты — агент sstools рядом с Apache Superset (окружения: {environments}).
Отвечай по-русски, кратко и по делу. Используй инструменты, чтобы узнать факты; не выдумывай.
«Этот дашборд», «этот датасет» — объект из контекста интерфейса ниже: бери его id и окружение
оттуда, не спрашивая. Изменения выполняются только после подтверждения человеком.

{context}"""


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    context: dict[str, Any] | None
    queue: list[ToolCall]
    current: PendingCall | None
    emit: list[dict[str, Any]]
    halted: bool


class ModelFailed(Exception):
    """The chat model call raised: the endpoint, its client, or its output (→ ``llm_error``)."""


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


class AgentGraph:
    def __init__(
        self,
        *,
        model: BaseChatModel,
        executor: ToolExecutor,
        environments: EnvironmentRegistry,
        confirm_reads: bool,
        router: Router | None = None,
    ) -> None:
        self._offer = ToolOffer(router)
        self._model = model
        self._executor = executor
        self._environments = environments
        self._confirm_reads = confirm_reads

    async def selection(self, state: AgentState, role: Role, *, timed: bool = False) -> Selection:
        """Offered now; :meth:`offered_with_the_last_reply` for the set its calls were made from."""
        messages = state.get("messages", [])
        return await self._offer.routed(messages, _context(state), role, timed=timed)

    async def offered_with_the_last_reply(self, state: AgentState, role: Role) -> Selection:
        """The selection the model chose its latest calls from: results of the first calls of a
        batch change what was used, and must not re-route (and refuse) the rest."""
        return await self.selection(
            {**state, "messages": before_last_reply(state.get("messages", []))}, role
        )

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
        run_id = runtime.context.run_id
        selection = await self.selection(state, runtime.context.acting_role(), timed=True)
        environments = ", ".join(
            f"{env.id} ({env.stage.value})" for env in self._environments.values()
        )
        system = SYSTEM_PROMPT.format(environments=environments, context=prompt_block(context))
        if context is None or context.env_id is None:
            # Environment-bound tools are hidden; the model should ask rather than guess.
            system += f"\n\nОкружение не выбрано: {texts.NEEDS_ENVIRONMENT} для работы с Superset."
        tools = [CATALOGUE[name].schema() for name in selection.offered]
        bound = self._model.bind_tools(tools) if tools else self._model
        try:
            reply = await bound.ainvoke([SystemMessage(system), *state.get("messages", [])])
        except Exception as exc:  # only the model call: the runtime reports it as llm_error
            raise ModelFailed(type(exc).__name__) from exc
        if not isinstance(reply, AIMessage):
            raise ModelFailed(f"the model answered with {type(reply).__name__}")
        reply.tool_calls = [{**call, "args": storable(call["args"])} for call in reply.tool_calls]
        emit = []
        if reply.text:
            emit.append(encode(MessageEvent(text=reply.text, run_id=run_id)))
        if reply.invalid_tool_calls:
            # Arguments that are not JSON: say so rather than end in silence. Kept out of the
            # history too, or the next request would carry calls that have no results.
            _log.warning(
                "model tool call unusable",
                tools=[call.get("name") for call in reply.invalid_tool_calls],
                run_id=run_id,
            )
            unusable = ErrorEvent(
                code="llm_error", message=texts.MODEL_REPLY_UNUSABLE, run_id=run_id
            )
            emit.append(encode(unusable))
            reply = AIMessage(
                content=reply.text or texts.MODEL_REPLY_UNUSABLE,
                tool_calls=reply.tool_calls,
                id=reply.id,
            )
        queue: list[ToolCall] = [
            {
                "id": call["id"] or f"call_{uuid.uuid4().hex[:12]}",
                "name": call["name"],
                "args": call["args"],
            }
            for call in reply.tool_calls
        ]
        return {"messages": [reply], "queue": queue, "current": None, "emit": emit, "halted": False}

    async def _assess(self, state: AgentState, runtime: Runtime[RunContext]) -> AgentState:
        call, *rest = state["queue"]
        run_id = runtime.context.run_id
        role = runtime.context.acting_role()
        emit = [
            encode(
                ToolCallEvent(
                    tool=call["name"],
                    title=CATALOGUE[call["name"]].title if call["name"] in CATALOGUE else None,
                    call_id=call["id"],
                    args=call["args"],
                    run_id=run_id,
                )
            )
        ]
        scope = _scope(_context(state))
        offered = await self.offered_with_the_last_reply(state, role)
        # Off the loop: a long SQL script's checks take seconds.
        verdict = await asyncio.to_thread(
            check_call,
            call,
            role,
            offered,
            scope,
            self._environments,
            confirm_reads=self._confirm_reads,
        )
        if isinstance(verdict, Refused):
            refused, message = step_messages.refusal(call, verdict, run_id)
            return {"messages": [message], "queue": rest, "current": None, "emit": emit + refused}
        context = _context(state)
        decision = verdict.decision.model_copy(
            update={
                "arguments": card_arguments(
                    verdict.tool,
                    verdict.args,
                    scope,
                    context.object_name if context else None,
                    self._environments,
                )
            }
        )
        preview_of = verdict.tool.preview
        if isinstance(verdict, NeedsConfirmation) and preview_of is not None:
            try:
                preview = await self._executor.preview(
                    preview_of(verdict.args, scope), runtime.context.token
                )
            except ToolArgumentError:
                preview = None
            decision = decision.model_copy(update=plan_impact(preview))
        current: PendingCall = {
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
            and answer.get("decision") in ("approve", "deny", "expired")
            and answer.get("confirmation_id") == current["confirmation_id"]
        )
        if valid and answer.get("args_hash") != args_hash(call["args"]):
            reason = texts.CANCELLED_MISMATCH.format(tool=tool.title)
        elif valid and answer["decision"] == "approve":
            return {"current": {**current, "approved": True}, "emit": [], "halted": False}
        elif valid and answer["decision"] == "expired":
            reason = texts.CANCELLED_EXPIRED.format(tool=tool.title)
        elif valid:
            reason = texts.CANCELLED_BY_USER.format(tool=tool.title)
        else:
            reason = texts.CANCELLED_MISMATCH.format(tool=tool.title)
        not_run = [call, *state.get("queue", [])]
        emit, messages = step_messages.cancellation(
            tool, current["confirmation_id"], reason, not_run
        )
        return {"messages": messages, "queue": [], "current": None, "halted": True, "emit": emit}

    async def _tools(self, state: AgentState, runtime: Runtime[RunContext]) -> AgentState:
        current = state["current"]
        assert current is not None
        assert current["approved"]
        call = current["call"]
        tool = CATALOGUE[call["name"]]
        args = tool.args_model.model_validate(call["args"])
        run_id = runtime.context.run_id
        crash = False
        try:
            digest = current["decision"].get("digest")
            result = await self._run(tool, args, state, runtime, digest)
        except Exception:  # a bug or a fault under the executor: this call failed, say which
            _log.exception("tool call failed unexpectedly", tool=tool.name, run_id=run_id)
            result, crash = step_messages.crashed(tool), True
        emit, halted = step_messages.result_events(tool, call, result, run_id, crash=crash)
        message = ToolMessage(
            content=result.content,
            tool_call_id=call["id"],
            name=tool.name,
            status="success" if result.outcome is Outcome.ok else "error",
        )
        return {"messages": [message], "current": None, "emit": emit, "halted": halted}

    async def _run(
        self,
        tool: ToolSpec,
        args: ToolArgs,
        state: AgentState,
        runtime: Runtime[RunContext],
        plan_digest: str | None,
    ) -> ToolResult:
        if tool.build is None:  # show_capabilities: answered from the selection itself
            # Everything this context and role allow, not only what fits the message.
            context, role = _context(state), runtime.context.acting_role()
            selection = self._offer.unrouted(state.get("messages", []), context, role)
            answer = capabilities(selection, context.object_type if context else None)
            content = json.dumps(answer, ensure_ascii=False)
            return ToolResult(outcome=Outcome.ok, content=content)
        try:
            return await self._executor.execute(
                tool,
                args,
                _scope(_context(state)).model_copy(update={"plan_digest": plan_digest}),
                token=runtime.context.token,
                username=runtime.context.username,
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
