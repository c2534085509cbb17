"""The offline planner: what answers when no language model is configured.

It is a reply function for :class:`~sstools.llm.function_model.FunctionChatModel`, so it goes
through the same graph (the same selection, guardrails and confirmations): it picks one of the
offered tools by lexical score, fills arguments from the UIContext block and the message, then
renders the result.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from sstools.agent import texts
from sstools.agent.context import context_from_prompt
from sstools.agent.offline.answers import render_content
from sstools.agent.tools import CATALOGUE
from sstools.llm.function_model import FunctionChatModel
from sstools.text import normalize

_WORD = re.compile(r"[\w-]+", re.UNICODE)
_STOP = frozenset(
    [
        "а",
        "и",
        "в",
        "во",
        "на",
        "по",
        "про",
        "о",
        "об",
        "мне",
        "мой",
        "моя",
        "все",
        "всё",
        "это",
        "этот",
        "эта",
        "этого",
        "этому",
        "как",
        "что",
        "где",
        "какой",
        "какая",
        "какие",
        "есть",
        "ли",
        "у",
        "с",
        "со",
        "для",
        "из",
        "к",
        "ко",
        "покажи",
        "скажи",
        "пожалуйста",
        "the",
        "a",
        "an",
        "of",
        "for",
        "to",
        "in",
        "on",
        "me",
        "my",
        "is",
        "are",
        "what",
        "show",
    ]
)
# The tool a person most likely means when nothing in the message points elsewhere.
_DEFAULT_FOR_OBJECT = {
    "dashboard": "get_health_summary",
    "dataset": "superset_explore_database",
    "migration": "list_tasks",
}


def _stem(word: str) -> str:
    return normalize(word)[:5]


# The object itself («дашборд», «датасет») says what, not what to do: no intent, no query.
_OBJECT_STEMS = frozenset({"дашбо", "датас", "dashb", "datas"})


def _words(text: str) -> list[str]:
    return [
        word
        for word in _WORD.findall(normalize(text))
        if word not in _STOP and word[:5] not in _OBJECT_STEMS
    ]


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
        system = next((m for m in messages if isinstance(m, SystemMessage)), None)
        context = context_from_prompt(str(system.content)) if system else None
        text = str(next((m.content for m in reversed(messages) if isinstance(m, HumanMessage)), ""))
        stems = {_stem(word) for word in _words(text)}
        scored = []
        for name in offered:
            tool = CATALOGUE[name]
            lexicon = {_stem(word) for phrase in tool.keywords for word in _words(phrase)}
            lexicon |= {_stem(part) for part in name.split("_")}
            scored.append((len(stems & lexicon), -offered.index(name), name))
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
        words = _words(text)
        args: dict[str, Any] = {}
        mentioned_envs = [env for env in self.environment_ids if env in words]
        sql = re.search(r"`([^`]+)`|((?:select|with|insert|update|delete)\b.*)", text, re.I | re.S)
        prose = text[: sql.start()] + text[sql.end() :] if sql else text  # numbers in SQL are data
        database = re.search(r"(?:баз[аеуы]|database|db)\D{0,3}([0-9]{1,9})", prose, re.I)
        for field in properties:
            if field == "query":
                keywords = {_stem(w) for p in CATALOGUE[name].keywords for w in _words(p)}
                rest = [w for w in words if _stem(w) not in keywords and w not in mentioned_envs]
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
                candidates = [w for w in _WORD.findall(text) if re.search(r"[0-9a-f-]{6,}|/", w)]
                if candidates:
                    args[field] = candidates[-1]
        missing = sorted(required - set(args))
        if missing:
            return f"Чтобы выполнить «{CATALOGUE[name].title}», уточните: {', '.join(missing)}."
        return args

    # -- rendering ------------------------------------------------------------------------

    def _render(self, messages: list[BaseMessage]) -> str:
        system = next((m for m in messages if isinstance(m, SystemMessage)), None)
        context = context_from_prompt(str(system.content)) if system else None
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
            title = spec.title if spec else "результат"
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
