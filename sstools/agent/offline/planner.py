"""The offline planner: what answers when no language model is configured.

It is a reply function for :class:`~sstools.llm.function_model.FunctionChatModel`, so it goes
through the same graph (the same selection, guardrails and confirmations): it picks one of the
offered tools by lexical score, fills arguments from the UIContext (which the graph hands over
in the system message's ``additional_kwargs``) and the message, then renders the result.

A question never becomes a write card (:func:`asks`): «что изменится, если выкатить в prod?»
is the write called with ``dry_run: true`` (its plan is the answer, nothing is written), a
question about backups or the history of deploys is answered by their list, and no other write
answers a question. A command («выкати в prod», «сделай бэкап») still gets its card.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from pydantic import ValidationError

from sstools.agent import texts
from sstools.agent.context import handed_context
from sstools.agent.offline import dry_run
from sstools.agent.offline.answers import render_content
from sstools.agent.routing.catalogue import keywords
from sstools.agent.routing.tokens import WORD, fold, stem, words
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts import tools as tool_texts
from sstools.agent.texts import vocabulary as vocab
from sstools.agent.tools import CATALOGUE, ToolKind
from sstools.llm.function_model import FunctionChatModel

# The tool a person most likely means when nothing in the message points elsewhere.
_DEFAULT_FOR_OBJECT = {
    "dashboard": "get_health_summary",
    "dataset": "superset_explore_database",
    "migration": "list_tasks",
}


Asking = Literal["plan", "read"]


def _phrases(items: tuple[str, ...], *, whole: bool = False) -> re.Pattern[str]:
    """Any of ``items`` at the start of a word of the folded text (``whole``: as a whole word)."""
    folded = sorted({_spaced(item) for item in items}, key=len, reverse=True)
    end = r"(?= |$)" if whole else ""
    return re.compile(r"(?:^| )(?:" + "|".join(map(re.escape, folded)) + ")" + end)


def _spaced(text: str) -> str:
    """Folded, with every run of non-letters one space: what the phrase patterns read."""
    return " ".join(re.findall(r"[a-z0-9]+", fold(text)))


_PLAN_QUESTION = _phrases(vocab.PLAN_QUESTIONS)
_WRITE_COMMAND = _phrases(vocab.WRITE_COMMANDS, whole=True)
_LEADS = "|".join(re.escape(_spaced(lead)) for lead in vocab.COMMAND_LEAD)
_WRITE_COMMAND_EN = re.compile(
    rf"^(?:(?:{_LEADS}) )*(?:{'|'.join(map(re.escape, vocab.WRITE_COMMANDS_EN))})(?= |$)"
)
_READ_QUESTION = _phrases(vocab.READ_QUESTIONS)
_POLITE = _phrases(vocab.POLITE_ASKS, whole=True)
_BACKUP = _phrases(vocab.BACKUP_WORDS)
_RESTORE = _phrases(vocab.RESTORE_WORDS)
_HISTORY = _phrases(vocab.HISTORY_WORDS)
_TASK = _phrases(vocab.TASK_WORDS)
_ROLLBACK = _phrases(vocab.ROLLBACK_WORDS)
# A backup's id as list_backups names it: «ss-dev.20261130T051038123456Z».
_BACKUP_ID = re.compile(r"[\w-]+\.[0-9]{8}T[0-9]{6,}Z")


def asks(text: str) -> Asking | None:
    """Whether the message asks rather than orders: ``plan`` when it asks what a write would
    change, ``read`` when it asks to be shown something; None: a command (its card, if a write).

    An imperative write verb makes a command («выкати в prod», even with «?»), unless the
    message asks what would change; a trailing «?» asks, unless it is politeness («можешь…?»).
    """
    said = _spaced(text)
    if _PLAN_QUESTION.search(said):
        return "plan"
    if _WRITE_COMMAND.search(said) or _WRITE_COMMAND_EN.search(said):
        return None
    if _READ_QUESTION.search(said):
        return "read"
    if text.rstrip().endswith("?") and not _POLITE.search(said):
        return "read"
    return None


def _read_only(name: str) -> bool:
    tool = CATALOGUE[name]
    return tool.kind is ToolKind.read and tool.classify is None


def _may_answer_a_question(name: str) -> bool:
    """A read, a write that has a plan (asked with ``dry_run``), or a tool whose kind depends on
    the call (then :func:`_writes` decides once its arguments are known)."""
    tool = CATALOGUE[name]
    return (
        "dry_run" in tool.args_model.model_fields or tool.classify is not None or _read_only(name)
    )


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


@cache
def _keyword_stems(name: str) -> frozenset[str]:
    """The stems of the words people use for the tool."""
    return frozenset(stem(word) for phrase in keywords(name) for word in words(phrase))


@cache
def _lexicon(name: str) -> frozenset[str]:
    """What a message is matched against: the keywords' stems and the tool name's parts."""
    return _keyword_stems(name) | {stem(part) for part in name.split("_")}


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
        text = str(next((m.content for m in reversed(messages) if isinstance(m, HumanMessage)), ""))
        asking = asks(text)
        said = words(text)
        stems = {stem(word) for word in said}
        # An environment's name says where, not what to do: it counts only when nothing else does.
        named = {stem(env) for env in self.environment_ids if env in said}
        scored = [(len((stems - named) & _lexicon(n)), -offered.index(n), n) for n in offered]
        if not any(score for score, _, _ in scored):
            scored = [(len(stems & _lexicon(n)), -offered.index(n), n) for n in offered]
        scored.sort(reverse=True)
        for name in self._candidates(text, scored, offered, asking):
            args = self._arguments(name, text)
            if isinstance(args, str):
                return AIMessage(content=f"{texts.OFFLINE_PREFIX} {args}")
            if asking and "dry_run" in CATALOGUE[name].args_model.model_fields:
                args["dry_run"] = True  # a question: the plan is the answer, nothing is written
            if asking and _writes(name, args):
                continue  # a question is never answered by a write: the next best tool
            return _call(name, args)
        object_type = context.object_type.value if context and context.object_type else None
        fallback = _DEFAULT_FOR_OBJECT.get(object_type or "", "show_capabilities")
        return _call(fallback if fallback in offered else "show_capabilities", {})

    @staticmethod
    def _candidates(
        text: str, scored: list[tuple[int, int, str]], offered: list[str], asking: Asking | None
    ) -> list[str]:
        """The tools to try, best first: those the message's words score, or for a question
        the read that answers it (the backups, the task history, a plan)."""
        matched = [name for score, _, name in scored if score > 0]
        if asking is None:
            return matched[:1]
        said = _spaced(text)
        # A question whose tool is not offered here: what is, and why the rest is hidden.
        elsewhere = ["show_capabilities"] if "show_capabilities" in offered else []
        backup_id = _BACKUP_ID.search(text) is not None
        restoring = backup_id and _RESTORE.search(said)  # «что будет, если восстановить …?»
        if asking == "read" and _BACKUP.search(said) and not restoring:
            return ["list_backups"] if "list_backups" in offered else elsewhere
        if asking == "read" and _HISTORY.search(said) and _TASK.search(said):
            return ["list_tasks"] if "list_tasks" in offered else elsewhere
        if asking == "plan":
            # Which write the question is about: a restore, a rollback, else a deploy or migration.
            if _RESTORE.search(said) or backup_id:
                plans: tuple[str, ...] = ("restore_backup",)
            elif _ROLLBACK.search(said):
                plans = ("rollback_deploy",)
            else:
                plans = ("preview_migration", "deploy_dashboard", "execute_migration")
            named = [name for name in matched if name in plans]
            return named or [name for name in plans if name in offered][:1] or elsewhere
        return [name for name in matched if _may_answer_a_question(name)]

    def _arguments(self, name: str, text: str) -> dict[str, Any] | str:
        """Arguments from the message; a question back when a required one is missing."""
        schema = CATALOGUE[name].args_model.model_json_schema()
        properties, required = schema.get("properties", {}), set(schema.get("required", []))
        said = words(text)
        args: dict[str, Any] = {}
        mentioned_envs = [env for env in self.environment_ids if env in said]
        sql = re.search(r"`([^`]+)`|((?:select|with|insert|update|delete)\b.*)", text, re.I | re.S)
        prose = text[: sql.start()] + text[sql.end() :] if sql else text  # numbers in SQL are data
        database = vocab.DATABASE_MENTION.search(prose)
        dashboards = vocab.DASHBOARD_MENTION.search(prose)
        named = dashboards.group(1) if dashboards else ""
        dashboard_ids = [int(one) for one in re.findall(r"[0-9]+", named)]
        for field in properties:
            if field == "query":
                lexicon = _keyword_stems(name)
                rest = [w for w in said if stem(w) not in lexicon and w not in mentioned_envs]
                if rest:
                    args["query"] = " ".join(rest)[:200]
            elif field in ("target_env_id", "env_id") and mentioned_envs:
                args[field] = mentioned_envs[-1]
            elif field == "sql" and sql:
                args[field] = (sql.group(1) or sql.group(2)).strip()
            elif field == "database_id" and field in required:
                args[field] = int(database.group(1)) if database else 1
            elif field == "dashboard_id" and dashboard_ids:
                args[field] = dashboard_ids[0]
            elif field == "dashboard_ids" and dashboard_ids:
                args[field] = dashboard_ids
            elif field == "message":
                args[field] = text[:500]
            elif field == "backup_id":
                backups = _BACKUP_ID.findall(text)
                if backups:
                    args[field] = backups[-1]
            elif field in ("task_id", "name") and field in required:
                candidates = [w for w in WORD.findall(text) if re.search(r"[0-9a-f-]{6,}|/", w)]
                if candidates:
                    args[field] = candidates[-1]
        missing = sorted(required - set(args))
        if missing:
            return answer_texts.ASK_ARGUMENTS.format(
                tool=CATALOGUE[name].title, missing=", ".join(missing)
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
            else:
                answer = render_content(message.name, str(message.content), args, env_id)
            results.append(
                f"**{title}**\\\n{answer}"
            )  # a trailing backslash breaks the line in markdown
        return f"{texts.OFFLINE_PREFIX}\n\n" + "\n\n".join(reversed(results))


def offline_planner(environment_ids: list[str]) -> FunctionChatModel:
    """The offline planner as a chat model the graph can bind tools to."""
    return FunctionChatModel(
        function=OfflinePlanner(environment_ids=tuple(environment_ids)),
        name="sstools-offline-planner",
    )
