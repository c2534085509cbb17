"""The offline planner: what answers when no language model is configured.

It is a reply function for :class:`~sstools.llm.function_model.FunctionChatModel`, so it goes
through the same graph (the same selection, guardrails and confirmations). Each first step of a
turn is four small readings, each in its module:

1. :mod:`~sstools.agent.offline.intent` — which tool the request means: the frames of what people
   say, else the router's ranking (BM25 + the embedding) among the offered tools, and whether it
   asks a question (:func:`asks`: a question never becomes a write card — a write with a plan is
   asked with ``dry_run: true``, another is passed over);
2. :mod:`~sstools.agent.offline.roles` — a tool the role lacks here is answered with the refusal
   naming the role it needs;
3. :mod:`~sstools.agent.offline.slots` — the arguments, from the message and the page's context
   (which the graph hands over in the system message's ``additional_kwargs``);
4. :mod:`~sstools.agent.offline.asking` — a missing one is asked back in words, with choices; «the
   last deploy» and a task status with no id are the conversation's latest task.

Once the tools answered, the results are rendered in Russian (:mod:`.answers`).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from pydantic import ValidationError

from sstools.agent.context import ObjectType, UIContext, handed_context
from sstools.agent.fleet import Fleet
from sstools.agent.fleet import handed as handed_fleet
from sstools.agent.offline import dry_run
from sstools.agent.offline.answers import Hint, render_content
from sstools.agent.offline.answers.overview import overview
from sstools.agent.offline.asking import ask, latest_task
from sstools.agent.offline.followup import (
    elsewhere,
    follow_up,
    last_said,
    referred,
    small_talk,
    waiting,
    write_previewed_elsewhere,
)
from sstools.agent.offline.intent import Asking, asks, choose, has_plan
from sstools.agent.offline.meanings import meaning
from sstools.agent.offline.reranking import reranked
from sstools.agent.offline.resolving import resolve, task_asked
from sstools.agent.offline.roles import role_note
from sstools.agent.offline.slots import Said, arguments, dashboards
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts import data_words
from sstools.agent.texts import offline as offline_texts
from sstools.agent.texts import tools as tool_texts
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.llm.function_model import FunctionChatModel

__all__ = ["OfflinePlanner", "asks", "offline_planner"]

# The tool a person most likely means when nothing in the message points elsewhere.
_DEFAULT_FOR_OBJECT = {
    "dashboard": "get_health_summary",
    "dataset": "superset_explore_database",
    "migration": "list_tasks",
}
# Tools whose dashboard is the page's when the message names none.
_PAGE_DASHBOARD = frozenset(
    {"deploy_dashboard", "get_health_summary", "run_llm_validation", "run_llm_documentation"}
)
# Tools that go somewhere: where is asked when the message does not say.
_TO_AN_ENVIRONMENT = frozenset({"deploy_dashboard", "execute_migration", "preview_migration"})


def _writes(name: str, args: dict[str, Any]) -> bool:
    """Whether this call would be a write (a per-call tool is asked with these arguments)."""
    tool = CATALOGUE[name]
    try:
        return tool.kind_for(tool.args_model.model_validate(args)) is ToolKind.write
    except ValidationError:
        return tool.kind is ToolKind.write


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    call_id = f"call_{uuid.uuid4().hex[:12]}"
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def _said(text: str) -> AIMessage:
    return AIMessage(content=text)


def _required(name: str) -> list[str]:
    fields = CATALOGUE[name].args_model.model_fields
    return [key for key, field in fields.items() if field.is_required()]


def commit_message(title: str | None, env_id: str | None) -> str:
    """«Energy KPIs: снимок из ss-dev»: what the commit holds, for a person reading git's log."""
    env = env_id or "—"
    if title:
        return offline_texts.COMMIT_MESSAGE.format(title=title, env=env)[:500]
    return offline_texts.COMMIT_MESSAGE_UNTITLED.format(env=env)


@dataclass(frozen=True)
class OfflinePlanner:
    """A deterministic planner with no language model behind it, as a reply function."""

    environment_ids: tuple[str, ...] = ()

    def __call__(self, messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage(content=self._render(messages))
        return self._plan(messages, offered)

    # -- planning -------------------------------------------------------------------------

    def _plan(self, messages: list[BaseMessage], offered: list[str]) -> AIMessage:
        context = handed_context(messages)
        # An answer to the planner's own question back fills the slot it asked for and keeps
        # the rest of the first message: «prod» after «в какое окружение?».
        text = (
            follow_up(messages)
            or waiting(messages)
            or referred(messages, context)
            or last_said(messages)
        )
        note = role_note(messages)
        if chatted := small_talk(text):
            return _said(chatted)
        if explained := meaning(text):
            return _said(explained)
        choice = choose(text, offered, note.lacking)
        if where := elsewhere(text, offered, note.lacking, context):
            # An analyst's what-if of a deploy: it is not theirs to make, its preview is.
            previewed = write_previewed_elsewhere(text, offered, note.lacking)
            refusal = note.refusal(previewed, {}) if previewed else None
            return _said(f"{refusal}. {where}" if refusal else where)
        said = Said.of(text)
        fleet = handed_fleet(messages)
        choice = reranked(choice, text, said, context, fleet, offered)
        question: str | None = None
        for name in choice.tools:
            args = self._arguments(name, said, context, messages, choice.asking, fleet)
            refusal = note.refusal(name, args if isinstance(args, dict) else {})
            if (
                refusal is None
                and isinstance(args, str)
                and data_words.DATA_CHANGE.search(said.prose)
            ):
                refusal = note.change_refusal(name)  # «удали тестовые заказы»: no query to read
            if refusal is not None:
                return _said(refusal)
            if name not in offered:
                continue
            if isinstance(args, str):
                question = question or args
                break
            if choice.asking and _writes(name, args):
                continue  # a question is never answered by a write: the next best tool
            if choice.overview and name == "get_health_summary":
                args["detail"] = True  # every field: what it shows, not only the verdict
            return _call(name, args)
        if question is not None:
            return _said(question)
        object_type = context.object_type.value if context and context.object_type else None
        fallback = _DEFAULT_FOR_OBJECT.get(object_type or "", "show_capabilities")
        return _call(fallback if fallback in offered else "show_capabilities", {})

    def _arguments(
        self,
        name: str,
        said: Said,
        context: UIContext | None,
        messages: list[BaseMessage],
        asking: Asking | None,
        fleet: Fleet,
    ) -> dict[str, Any] | str:
        """Arguments from the message; a question back when a required one is missing."""
        here = context.env_id if context else None
        page_object = context.object_id if context else None
        args = arguments(name, said, self.environment_ids, here, page_object)
        if asking and has_plan(name):
            args["dry_run"] = True  # a question: the plan is the answer, nothing is written
        on_a_dashboard = context is not None and context.object_type is ObjectType.dashboard
        conversation = name == "rollback_deploy" and said.last and latest_task(messages, "deploy")
        if not conversation:  # what this conversation did comes first, then the task records
            resolved = resolve(
                name,
                args,
                said,
                context,
                fleet,
                numbered=bool(dashboards(said)),
                known=self.environment_ids,
            )
            if isinstance(resolved, str):
                return resolved
            args = resolved
        if name == "commit_changes" and "message" not in args:
            title = context.object_name if context and on_a_dashboard else None
            args["message"] = commit_message(title, here)
        missing = [key for key in _required(name) if key not in args]
        deploy = name == "rollback_deploy"
        if "task_id" in missing and (said.last or name == "get_task_status"):
            env = args.get("env_id")
            task = latest_task(messages, "deploy" if deploy else None, env if deploy else None)
            if task is not None:
                args["task_id"] = task.id
                missing.remove("task_id")
                if "env_id" in missing and task.env_id:  # the deploy's own environment
                    args["env_id"] = task.env_id
                    missing.remove("env_id")
        if "task_id" in missing and name == "get_task_status":  # then the task records
            recorded = task_asked(said, fleet, args.get("env_id"), self.environment_ids)
            if recorded is not None:
                args["task_id"] = recorded.id
                missing.remove("task_id")
        # What the page shows is what the person means: no need to name it again.
        if name in _PAGE_DASHBOARD and not on_a_dashboard and "dashboard_id" not in args:
            missing.insert(0, "dashboard_id")
        if name == "execute_migration" and not on_a_dashboard and "dashboard_ids" not in args:
            missing.insert(0, "dashboard_ids")
        if name == "preview_migration" and "dashboard_ids" not in args:
            missing.insert(0, "dashboard_ids")
        if name in _TO_AN_ENVIRONMENT and "target_env_id" not in {*args, *missing}:
            missing.append("target_env_id")
        if missing:
            return ask(
                name,
                missing,
                messages,
                self.environment_ids,
                here=here,
                env_id=args.get("env_id"),
                deploy=deploy,
            )
        return args

    # -- rendering ------------------------------------------------------------------------

    def _render(self, messages: list[BaseMessage]) -> str:
        context = handed_context(messages)
        calls = {
            call["id"]: call["args"]
            for message in messages
            if isinstance(message, AIMessage)
            for call in message.tool_calls
        }
        results = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                break
            spec = CATALOGUE.get(message.name or "")  # a person reads the title, not the tool id
            title = spec.title if spec else answer_texts.RESULT
            args = calls.get(message.tool_call_id) or {}
            # Where it read: the environment the call named (staging's backups), else the page's.
            env_id = args.get("env_id") or (context.env_id if context else None)
            if args.get("dry_run") is True:
                title = tool_texts.DRY_RUN_TITLE.format(tool=title)
                answer = dry_run.render(str(message.content), args, env_id)
            elif message.name == "get_health_summary" and args.get("detail") is True:
                answer = _overview(str(message.content), env_id)
            else:
                answer = render_content(message.name, str(message.content), args, env_id)
            results.append(
                f"**{title}**\\\n{answer}"
            )  # a trailing backslash breaks the line in markdown
        return "\n\n".join(reversed(results))


def _overview(content: str, env_id: str | None) -> str:
    """«Расскажи про этот дашборд»: what it shows; the health answer if it is not a summary."""
    try:
        payload = json.loads(content)
    except ValueError:
        payload = None
    made = overview(payload, Hint(env_id=env_id))
    return made if made is not None else render_content("get_health_summary", content, {}, env_id)


def offline_planner(environment_ids: list[str]) -> FunctionChatModel:
    """The offline planner as a chat model the graph can bind tools to."""
    return FunctionChatModel(
        function=OfflinePlanner(environment_ids=tuple(environment_ids)),
        name="sstools-offline-planner",
    )
