"""The system prompt of a model call: the environments, the page's context, what the role lacks.

Made per step and never stored; within a turn it is the same text each time (the context and
the offered set are the turn's), so a server's prompt cache holds. What the person's role cannot
do here is said in it (:func:`beyond_the_role`): asked for such a thing, a model answers with
the role needed instead of calling something unrelated.
"""

from __future__ import annotations

from langchain_core.messages import SystemMessage

from sstools.agent import texts
from sstools.agent.context import UIContext, prompt_block, system_message
from sstools.agent.selection import HiddenBecause, Selection
from sstools.agent.texts import answers as answer_texts
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role
from sstools.environments import EnvironmentRegistry


def _role_name(role: Role) -> str:
    return answer_texts.ROLE_NAMES.get(role.value, role.value)


def beyond_the_role(selection: Selection, role: Role) -> str | None:
    """«С ролью «аналитик» недоступно: «Выкатка дашборда» — доступно роли «инженер»; …»."""
    hidden = [
        texts.HIDDEN_TOOL_ROLE.format(
            tool=CATALOGUE[name].title, required=_role_name(CATALOGUE[name].min_role)
        )
        for name, why in selection.hidden.items()
        if why.reason is HiddenBecause.role and name in CATALOGUE
    ]
    if not hidden:
        return None
    return texts.HIDDEN_BY_ROLE_NOTE.format(role=_role_name(role), tools="; ".join(hidden))


def system_prompt(
    environments: EnvironmentRegistry,
    context: UIContext | None,
    selection: Selection,
    role: Role,
) -> SystemMessage:
    listed = ", ".join(f"{env.id} ({env.stage.value})" for env in environments.values())
    system = texts.SYSTEM_PROMPT.format(environments=listed, context=prompt_block(context))
    if context is None or context.env_id is None:
        system += f"\n\n{texts.NO_ENVIRONMENT_NOTE}"
    beyond = beyond_the_role(selection, role)
    if beyond:
        system += f"\n\n{beyond}"
    # The context as data beside the text, for the offline planner: no chat client sends a
    # system message's additional_kwargs, and the system message is never stored in state.
    return system_message(system, context)
