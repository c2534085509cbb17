"""The answer of ``show_capabilities``: what is offered here, and what is hidden and why.

Titles and reasons are Russian (a person reads them); the tool id stays beside each for the model,
which calls tools by id — the offline answer shows titles only.
"""

from __future__ import annotations

from typing import Any

from sstools.agent import texts
from sstools.agent.context import ObjectType
from sstools.agent.selection import HiddenBecause, HiddenTool, Selection
from sstools.agent.texts import answers as answer_texts
from sstools.agent.tools import CATALOGUE


def reason(name: str, hidden: HiddenTool, object_type: ObjectType | None = None) -> str:
    """Why a tool is hidden, in words: «нужна роль «инженер»», never a role or object id."""
    template = answer_texts.HIDDEN_REASONS.get(hidden.reason.value, hidden.detail)
    if hidden.reason is HiddenBecause.context and object_type is not None:
        template = answer_texts.HIDDEN_BY_OBJECT
    role = CATALOGUE[name].min_role.value
    return template.format(
        role=answer_texts.ROLE_NAMES.get(role, role),
        object=answer_texts.OBJECT_DATIVE.get(object_type.value if object_type else "", ""),
    )


def capabilities(selection: Selection, object_type: ObjectType | None = None) -> dict[str, Any]:
    return {
        "title": texts.CAPABILITIES_TITLE,
        "available": [{"tool": name, "title": CATALOGUE[name].title} for name in selection.offered],
        "hidden": [
            {"tool": name, "title": CATALOGUE[name].title, "why": reason(name, hidden, object_type)}
            for name, hidden in selection.hidden.items()
        ],
    }
