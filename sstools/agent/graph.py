"""The agent graph: agent → assess → confirm → tools → agent (LangGraph, checkpointed).

- ``agent`` calls the model with only the offered tools — the turn's set, decided at its first
  model call (:meth:`AgentGraph._turn`) — and :func:`replies.settle` says what the reply comes
  to: calls to assess (those written as text too, at most ``calls_per_reply``), the model asked
  once more, or the turn's answer, which ends with the server's line of what ran
  (:func:`replies.final_answer`).
- ``assess`` asks ``invocation.check_call`` whether the call may run (AGTL-FR-005), then the
  turn (:func:`turn.refusal`: the page's object, the task starts), and, for a call that needs a
  card, fetches the read-only impact preview. A call answered already in the turn is not run.
- ``confirm`` does nothing but ``interrupt()``: LangGraph re-runs a node from its start on resume,
  so nothing with a side effect may sit before it in the same node.
- ``tools`` runs one call through the executor.

Each step decodes the state's plain data once (:class:`Page`) and hands typed values down.
Events a step produces travel in its update under ``emit``, already encoded: the runtime stores
them as they are and the stream sends them as stored.
One call is assessed at a time, so there is at most one confirmation per interrupt.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import structlog
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer

from sstools.agent import confirm_step, fleet, prompt, replies, step_messages
from sstools.agent import graph_edges as edges
from sstools.agent import turn as this_turn
from sstools.agent.capabilities import capabilities
from sstools.agent.card.build import approved_ahead, build_card
from sstools.agent.card.plan import PlanView
from sstools.agent.chat_model import answers_offline
from sstools.agent.context import UIContext
from sstools.agent.events import EncodedEvent, MessageEvent, ToolCallEvent, encode
from sstools.agent.executor import Outcome, Preview, ToolExecutor, ToolResult
from sstools.agent.explain import ModelFailed
from sstools.agent.fleet import FleetReader
from sstools.agent.graph_state import AgentState, Page, TurnState, approved_plan
from sstools.agent.invocation import (
    NeedsConfirmation,
    PendingCall,
    Refused,
    ToolCall,
    args_hash,
    check_call,
    storable,
)
from sstools.agent.run.context import RunContext
from sstools.agent.selection import (
    Router,
    Selection,
    ToolOffer,
    before_last_reply,
)
from sstools.agent.tools import CATALOGUE, CallScope, ToolArgs, ToolArgumentError, ToolSpec
from sstools.auth.roles import Role
from sstools.config import Settings
from sstools.environments import EnvironmentRegistry
from sstools.llm import usage

RECURSION_LIMIT = 40
_DEFAULTS = Settings.model_fields

_log = structlog.get_logger("sstools.agent")


def _step(
    messages: list[AnyMessage],
    emit: list[EncodedEvent],
    turn: TurnState,
    *,
    queue: list[ToolCall] | None = None,
    again: bool = False,
) -> AgentState:
    """An agent step's update: what it adds to the history, says, and leaves to run."""
    return {
        "messages": messages,
        "queue": queue or [],
        "current": None,
        "emit": emit,
        "halted": False,
        "turn": turn,
        "again": again,
    }


class AgentGraph:
    def __init__(
        self,
        *,
        model: BaseChatModel,
        executor: ToolExecutor,
        environments: EnvironmentRegistry,
        confirm_reads: bool,
        router: Router | None = None,
        calls_per_reply: int = _DEFAULTS["agent_calls_per_reply"].default,
        task_starts_per_turn: int = _DEFAULTS["agent_task_starts_per_turn"].default,
    ) -> None:
        self._offer = ToolOffer(router)
        self._model = model
        self._calls_per_reply = calls_per_reply
        self._task_starts_per_turn = task_starts_per_turn
        # The offline planner's answers are the server's own words: no claim to check.
        self._offline = answers_offline(model)
        self._executor = executor
        self._environments = environments
        self._confirm_reads = confirm_reads
        # The planner resolves names before its first call: the fleet's titles and tasks, read
        # over HTTP with the person's token (a model reads them from its tools' answers).
        self._fleet = FleetReader(executor.read_json, list(environments)) if self._offline else None

    async def selection(self, state: AgentState, role: Role) -> Selection:
        """Offered now; :meth:`offered_with_the_last_reply` for the set its calls were made from."""
        return await self._selection(state.get("messages", []), Page.of(state).context, role)

    async def offered_with_the_last_reply(self, state: AgentState, role: Role) -> Selection:
        """The selection the model chose its latest calls from: the turn's (a state from before
        turns kept one: as of the reply, :meth:`_offered_before`)."""
        turn = state.get("turn")
        if turn is not None:
            return Selection.model_validate(turn["offer"])
        return await self._offered_before(state.get("messages", []), Page.of(state).context, role)

    async def _offered_before(
        self, messages: list[AnyMessage], context: UIContext | None, role: Role
    ) -> Selection:
        """Results of the first calls of a batch change what was used, and must not re-route
        (and refuse) the rest: route as of the reply that made the calls."""
        return await self._selection(before_last_reply(messages), context, role)

    async def _selection(
        self,
        messages: list[AnyMessage],
        context: UIContext | None,
        role: Role,
        *,
        timed: bool = False,
    ) -> Selection:
        return await self._offer.routed(messages, context, role, timed=timed)

    @property
    def model(self) -> BaseChatModel:
        return self._model

    @property
    def offline(self) -> bool:
        return self._offline

    def compile(self, checkpointer: Checkpointer) -> CompiledStateGraph[Any, Any, Any, Any]:
        graph = StateGraph(AgentState, context_schema=RunContext)
        graph.add_node("agent", self._agent)
        graph.add_node("assess", self._assess)
        graph.add_node("confirm", confirm_step.confirm)
        graph.add_node("tools", self._tools)
        graph.add_edge(START, "agent")
        graph.add_conditional_edges("agent", edges.after_agent, ["assess", "agent", END])
        graph.add_conditional_edges(
            "assess", edges.after_assess, ["confirm", "tools", "assess", "agent"]
        )
        graph.add_conditional_edges("confirm", edges.after_confirm, ["tools", "assess", END])
        graph.add_conditional_edges("tools", edges.after_tools, ["assess", "agent", END])
        return graph.compile(checkpointer=checkpointer)

    # -- nodes ----------------------------------------------------------------------------

    async def _turn(
        self, state: AgentState, messages: list[AnyMessage], page: Page, role: Role
    ) -> TurnState:
        """The turn's offered set, decided at its first model call and kept to its end: a tool
        used or a task started mid-turn changes nothing the model is sent, so a server's prompt
        cache holds (they count from the next turn, through the selection's history). An
        approval is the one exception: the person's decision starts a new stretch, whose set
        (``get_task_status`` for the task it starts) is decided at its first model call."""
        turn = state.get("turn")
        if turn is None or (messages and isinstance(messages[-1], HumanMessage)):
            selection = await self._selection(messages, page.context, role, timed=True)
            return {
                "offer": selection.model_dump(mode="json"),
                "text_retry": False,
                "loop_nudged": False,
            }
        return turn

    async def _agent(self, state: AgentState, runtime: Runtime[RunContext]) -> AgentState:
        page = Page.of(state)
        messages = state.get("messages", [])
        run_id = runtime.context.run_id
        role = runtime.context.acting_role()
        turn = await self._turn(state, messages, page, role)
        selection = Selection.model_validate(turn["offer"])
        tools = [CATALOGUE[name].schema() for name in selection.offered]
        bound = self._model.bind_tools(tools) if tools else self._model
        try:
            system = prompt.system_prompt(self._environments, page.context, selection, role)
            if self._fleet is not None:
                ctx = runtime.context
                shown = await self._fleet.fleet(ctx.username, ctx.token, page.scope.dataset())
                system = fleet.hand(system, shown)
            reply = await bound.ainvoke([system, *messages])
        except Exception as exc:  # only the model call: the runtime reports it as llm_error
            raise ModelFailed(type(exc).__name__) from exc
        if not isinstance(reply, AIMessage):
            raise ModelFailed(f"the model answered with {type(reply).__name__}")
        # The offline planner spends no provider tokens: nothing counts against a budget.
        spent = None if self._offline else await usage.cost([system, *messages], tools, reply)
        return {**self._after_reply(reply, messages, page, turn, selection, run_id), "spent": spent}

    def _after_reply(
        self,
        reply: AIMessage,
        messages: list[AnyMessage],
        page: Page,
        turn: TurnState,
        selection: Selection,
        run_id: str,
    ) -> AgentState:
        """What the model's reply comes to: calls to assess, a second ask, or the answer."""
        reply.tool_calls = [{**call, "args": storable(call["args"])} for call in reply.tool_calls]
        emit: list[EncodedEvent] = []
        if reply.invalid_tool_calls:
            # Arguments that are not JSON: say so rather than end in silence. Kept out of the
            # history too, or the next request would carry calls that have no results.
            _log.warning(
                "model tool call unusable",
                tools=[call.get("name") for call in reply.invalid_tool_calls],
                run_id=run_id,
            )
            unusable, words = step_messages.unusable_reply(run_id)
            emit.append(unusable)
            reply = AIMessage(
                content=reply.text or words,
                tool_calls=reply.tool_calls,
                id=reply.id,
            )
            if not reply.tool_calls:  # the error said it: nothing ran, nothing more to say
                return _step([reply], emit, turn)
        settled = replies.settle(reply, messages, turn, selection, self._calls_per_reply)
        if settled.answer is not None:
            added = settled.added
            answered = self._answer(
                settled.answer, [*messages, *added], page, run_id, settled.turn, model=settled.own
            )
            return {**answered, "messages": [*added, *answered.get("messages", [])]}
        if settled.said:
            emit.append(encode(MessageEvent(text=settled.said, run_id=run_id)))
        return _step(settled.added, emit, settled.turn, queue=settled.queue, again=settled.again)

    def _answer(
        self,
        words: str,
        messages: list[AnyMessage],
        page: Page,
        run_id: str,
        turn: TurnState,
        *,
        model: bool = False,
    ) -> AgentState:
        """The turn's answer: ``words`` (the model's, when ``model``), filled when empty, with
        the server's own line of what ran."""
        env_id = page.context.env_id if page.context else None
        text = replies.final_answer(
            words, messages, env_id, offline=self._offline, check_claims=model
        )
        return _step(
            [AIMessage(content=text)], [encode(MessageEvent(text=text, run_id=run_id))], turn
        )

    async def _assess(self, state: AgentState, runtime: Runtime[RunContext]) -> AgentState:
        call, *rest = state["queue"]
        run_id = runtime.context.run_id
        role = runtime.context.acting_role()
        messages = state.get("messages", [])
        if this_turn.answered_before(call, messages) is not None:
            # Answered already in this turn: not run again, and the model is told to answer.
            skipped = replies.repeated(call)
            return {"messages": [skipped], "queue": rest, "current": None, "emit": []}
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
        page = Page.of(state)
        offered = await self.offered_with_the_last_reply(state, role)
        # Off the loop: a long SQL script's checks take seconds.
        verdict = await asyncio.to_thread(
            check_call,
            call,
            role,
            offered,
            page.scope,
            self._environments,
            confirm_reads=self._confirm_reads,
        )
        if not isinstance(verdict, Refused):
            checked = verdict.args.model_dump(mode="json")  # as validated: "5.0" is 5
            why_not = this_turn.refusal(
                verdict.tool, checked, page.scope, messages, self._task_starts_per_turn
            )
            verdict = Refused(why_not) if why_not is not None else verdict
        if isinstance(verdict, Refused):
            refused, message = step_messages.refusal(call, verdict, run_id)
            return {"messages": [message], "queue": rest, "current": None, "emit": emit + refused}
        plan: PlanView | None = None  # the write's plan, for a card that is bound to one
        preview_of = verdict.tool.preview
        if isinstance(verdict, NeedsConfirmation) and preview_of is not None:
            try:
                preview = await self._executor.preview(
                    preview_of(verdict.args, page.scope), runtime.context.token
                )
            except ToolArgumentError as exc:  # e.g. which dashboard: the builder says what
                preview = Preview(problem=str(exc))
            instead = step_messages.instead_of_a_card(call, verdict.tool, preview, run_id)
            if instead is not None:
                said, message = instead
                return {"messages": [message], "queue": rest, "current": None, "emit": emit + said}
            plan = preview.plan
        name = page.context.object_name if page.context else None
        decision = build_card(
            verdict.tool, verdict.args, verdict.decision, page.scope, name, self._environments, plan
        )
        ahead = approved_ahead(call, verdict.tool, decision, runtime.context.approved)
        if ahead:  # the tool line says why no card: «одобрять похожие» on an earlier dev card
            emit = [encode(ToolCallEvent.model_validate({**emit[0], "approved_ahead": True}))]
        current: PendingCall = {
            "call": call,
            "decision": decision.model_dump(mode="json"),
            "confirmation_id": f"cf_{uuid.uuid4().hex}",
            "args_hash": args_hash(call["args"]),
            "approved": not decision.needs_confirmation or ahead,
        }
        return {"queue": rest, "current": current, "emit": emit}

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
            page = Page.of(state)
            scope = page.scope.model_copy(update={"approved_plan": approved_plan(current)})
            result = await self._run(tool, args, state, page, scope, runtime)
        except Exception:  # a bug or a fault under the executor: this call failed, say which
            _log.exception("tool call failed unexpectedly", tool=tool.name, run_id=run_id)
            result, crash = step_messages.crashed(tool), True
        emit, halted = step_messages.result_events(tool, call, result, run_id, crash=crash)
        message = ToolMessage(
            content=step_messages.told_of_edit(result.content, call),
            tool_call_id=call["id"],
            name=tool.name,
            status="success" if result.outcome is Outcome.ok else "error",
            artifact=result.outcome.value,  # how it ended, for the turn's line (turn.executed)
        )
        return {"messages": [message], "current": None, "emit": emit, "halted": halted}

    async def _run(
        self,
        tool: ToolSpec,
        args: ToolArgs,
        state: AgentState,
        page: Page,
        scope: CallScope,
        runtime: Runtime[RunContext],
    ) -> ToolResult:
        if tool.build is None:  # show_capabilities: answered from the selection itself
            # Everything this context and role allow, not only what fits the message.
            context, role = page.context, runtime.context.acting_role()
            selection = self._offer.unrouted(state.get("messages", []), context, role)
            answer = capabilities(selection, context.object_type if context else None)
            content = json.dumps(answer, ensure_ascii=False)
            return ToolResult(outcome=Outcome.ok, content=content)
        try:
            return await self._executor.execute(
                tool,
                args,
                scope,
                token=runtime.context.token,
                username=runtime.context.username,
            )
        except ToolArgumentError as exc:
            return step_messages.unusable_arguments(exc)
