"""The offline planner: what answers when no language model is configured.

It is a reply function for :class:`~sstools.llm.function_model.FunctionChatModel`, so it goes
through the same graph (the same selection, guardrails and confirmations): it picks one of the
offered tools by lexical score, fills arguments from the UIContext (which the graph hands over
in the system message's ``additional_kwargs``) and the message, then renders the result.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from functools import cache
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from sstools.agent import texts
from sstools.agent.context import handed_context
from sstools.agent.offline.answers import render_content
from sstools.agent.routing.catalogue import keywords
from sstools.agent.routing.tokens import WORD, stem, words
from sstools.agent.texts import answers as answer_texts
from sstools.agent.texts.vocabulary import DATABASE_MENTION
from sstools.agent.tools import CATALOGUE
from sstools.llm.function_model import FunctionChatModel

# The tool a person most likely means when nothing in the message points elsewhere.
_DEFAULT_FOR_OBJECT = {
    "dashboard": "get_health_summary",
    "dataset": "superset_explore_database",
    "migration": "list_tasks",
}


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
        stems = {stem(word) for word in words(text)}
        scored = [(len(stems & _lexicon(name)), -offered.index(name), name) for name in offered]
        best = max(scored, default=(0, 0, "show_capabilities"))
        name = best[2]
        if best[0] == 0:
            object_type = context.object_type.value if context and context.object_type else None
            fallback = _DEFAULT_FOR_OBJECT.get(object_type or "", "show_capabilities")
            name = fallback if fallback in offered else "show_capabilities"
        args = self._arguments(name, text)
        if isinstance(args, str):
            return AIMessage(content=f"{texts.OFFLINE_PREFIX} {args}")
        call_id = f"call_{uuid.uuid4().hex[:12]}"
        return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])

    def _arguments(self, name: str, text: str) -> dict[str, Any] | str:
        """Arguments from the message; a question back when a required one is missing."""
        schema = CATALOGUE[name].args_model.model_json_schema()
        properties, required = schema.get("properties", {}), set(schema.get("required", []))
        said = words(text)
        args: dict[str, Any] = {}
        mentioned_envs = [env for env in self.environment_ids if env in said]
        sql = re.search(r"`([^`]+)`|((?:select|with|insert|update|delete)\b.*)", text, re.I | re.S)
        prose = text[: sql.start()] + text[sql.end() :] if sql else text  # numbers in SQL are data
        database = DATABASE_MENTION.search(prose)
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
            elif field == "message":
                args[field] = text[:500]
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
            answer = render_content(
                message.name,
                str(message.content),
                args=calls.get(message.tool_call_id),
                env_id=context.env_id if context else None,
            )
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
