"""``@assistant_tool``: a tool is a function from validated arguments to the HTTP call it makes.

Declaring the call as data (:class:`ToolRequest`) keeps every policy — retries, timeouts,
truncation, audit — in the executor, in one place.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, partial
from typing import Any, get_type_hints

import structlog
from pydantic import BaseModel, ConfigDict

from sstools.agent.context import ObjectType
from sstools.agent.texts import tools as tool_texts
from sstools.agent.tools.call import CallScope, ToolRequest
from sstools.auth.roles import Role
from sstools.errors import SstoolsError

_log = structlog.get_logger("sstools.agent")


class ToolKind(StrEnum):
    read = "read"
    write = "write"


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown arguments are an error the model sees."""

    model_config = ConfigDict(extra="forbid")


class DetailArgs(ToolArgs):
    """Arguments of a read whose answer enters the model shaped (:mod:`.shaping`)."""

    # Not described to the model: the name says it (true: every field, not the concise shape).
    detail: bool = False


class ToolDeclarationError(SstoolsError, ValueError):
    """A tool declared twice, or without its title: the catalogue is not built."""


Builder = Callable[[Any, CallScope], ToolRequest]
# (answer, arguments) -> what of the answer the model reads; see sstools.agent.tools.shaping.
Shaper = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str  # the tool in human words (sstools.agent.texts.tools), for cards and logs
    description: str
    args_model: type[ToolArgs]
    kind: ToolKind
    needs_env: bool
    min_role: Role  # ToolPermission: the least role that may use the tool at all
    affinity: frozenset[ObjectType]
    always: bool
    build: Builder | None  # None: answered locally, no HTTP
    preview: Builder | None = None  # read-only call that estimates a write's impact
    classify: Callable[[Any], ToolKind] | None = None  # per-call kind (e.g. SQL)
    target_env: Callable[[Any, CallScope], str | None] | None = None
    starts_task: bool = False  # answers 202 with the task record; get_task_status follows it
    # Reads a task's record: the same call while the task runs is following it, not a loop.
    follows_task: bool = False
    shape: Shaper | None = None  # what of a successful answer the model reads (None: all)
    # Arguments a person may change on the card before deciding (sstools.agent.card.edits).
    editable: tuple[str, ...] = ()

    def kind_for(self, args: ToolArgs) -> ToolKind:
        return self.classify(args) if self.classify else self.kind

    def required_role(self, args: ToolArgs) -> Role:
        return self.write_role if self.kind_for(args) is ToolKind.write else self.min_role

    @property
    def write_role(self) -> Role:
        """The least role that may write with it: an engineer at least."""
        return max(self.min_role, Role.engineer, key=lambda role: role.rank)

    def environment(self, args: ToolArgs, scope: CallScope) -> str | None:
        """The environment the call acts on (the target, for deploys and migrations)."""
        if self.target_env is not None:
            return self.target_env(args, scope)
        return scope.env_id if self.needs_env else None

    def project(self, payload: Any, args: ToolArgs) -> Any:
        """The answer as the model reads it: the tool's shape, or all of it with ``detail``."""
        if self.shape is None or (isinstance(args, DetailArgs) and args.detail):
            return payload
        try:
            return self.shape(payload, args)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            # An answer of a shape the projection did not expect: the summary still fits it.
            _log.warning("tool answer not shaped", tool=self.name, exc_info=True)
            return payload

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema offered to the model: the description's first
        paragraph (:func:`summary`) and the arguments' schema made compact (:func:`compact`).
        A fresh copy each time: pydantic's schema generation costs ~2.5 ms a tool, every turn."""
        schema: dict[str, Any] = json.loads(_schema_text(self))
        return schema


@cache
def _schema_text(tool: ToolSpec) -> str:
    return json.dumps(
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": summary(tool.description),
                "parameters": compact(tool.args_model.model_json_schema()),
            },
        },
        ensure_ascii=False,
    )


# What the model needs of an argument is its name, type, meaning and whether it may be left out.
# Titles repeat the name; bounds, lengths and patterns are checked by the arguments model, whose
# error the model reads when a call breaks them; a default that is null, false or 0 says nothing
# that "not required" does not. Each costs tokens of every prompt (issue 21 §8).
_CHECKED_NOT_SHOWN = frozenset(
    {
        "title",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "additionalProperties",
    }
)
_NULL = {"type": "null"}


def summary(description: str) -> str:
    """What the model reads of a tool's docstring: its first paragraph, on one line.

    The paragraphs after it are for people and for the router, whose BM25 reads the whole
    docstring (:func:`sstools.agent.routing.catalogue.lexical_document`).
    """
    return " ".join(description.split("\n\n", 1)[0].split())


def compact(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic arguments schema as the model reads it: the object's own docstring and every
    title dropped, ``anyOf: [X, null]`` (an optional argument) collapsed to ``X``, checks left
    to validation, empty defaults dropped."""
    out = _compact_node(schema)
    out.pop("description", None)  # the arguments class's docstring: for people, not the model
    return out


def _compact_node(node: dict[str, Any]) -> dict[str, Any]:
    options = node.get("anyOf")
    if isinstance(options, list) and _NULL in options:
        rest = [option for option in options if option != _NULL]
        if len(rest) == 1:  # optional: leaving it out already says null
            node = {key: value for key, value in node.items() if key != "anyOf"} | rest[0]
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _CHECKED_NOT_SHOWN or (key == "default" and not value):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: _compact_value(one) for name, one in value.items()}
        else:
            out[key] = _compact_value(value)
    return out


def _compact_value(value: Any) -> Any:
    if isinstance(value, dict):
        return _compact_node(value)
    if isinstance(value, list):
        return [_compact_value(one) for one in value]
    return value


CATALOGUE: dict[str, ToolSpec] = {}


def assistant_tool(
    *,
    kind: ToolKind,
    min_role: Role = Role.analyst,
    needs_env: bool = False,
    affinity: tuple[ObjectType, ...] = (),
    always: bool = False,
    local: bool = False,
    preview: Builder | None = None,
    classify: Callable[[Any], ToolKind] | None = None,
    target_env: Callable[[Any, CallScope], str | None] | None = None,
    starts_task: bool = False,
    follows_task: bool = False,
    shape: Shaper | None = None,
    editable: tuple[str, ...] = (),
) -> Callable[[Builder], Builder]:
    """Register the decorated builder as a tool; its docstring's first paragraph is what the
    model reads of it (the whole docstring is what the router's BM25 matches), its title is
    :data:`sstools.agent.texts.tools.TITLES` by its name, and the words people use for it are
    in ``sstools/agent/routing/tools.yaml``."""

    def register(function: Builder) -> Builder:
        hints = get_type_hints(function)
        args_model = hints[next(iter(inspect.signature(function).parameters))]
        name = function.__name__
        if name in CATALOGUE:
            raise ToolDeclarationError(f"tool {name} declared twice")
        if name not in tool_texts.TITLES:
            raise ToolDeclarationError(f"tool {name} has no title in sstools/agent/texts/tools.py")
        CATALOGUE[name] = ToolSpec(
            name=name,
            title=tool_texts.TITLES[name],
            description=inspect.cleandoc(function.__doc__ or ""),
            args_model=args_model,
            kind=kind,
            needs_env=needs_env,
            min_role=min_role,
            affinity=frozenset(affinity),
            always=always,
            build=None if local else function,
            preview=preview,
            classify=classify,
            target_env=target_env,
            starts_task=starts_task,
            follows_task=follows_task,
            shape=shape,
            editable=editable,
        )
        if missing := set(editable) - set(args_model.model_fields):
            raise ToolDeclarationError(f"tool {name} edits arguments it has not: {missing}")
        return function

    return register


# A read of one environment: the page's, unless the tool's ``target_env`` reads another from its
# arguments (a ``classify`` may still make one call of it a write).
environment_read = partial(assistant_tool, kind=ToolKind.read, needs_env=True)
