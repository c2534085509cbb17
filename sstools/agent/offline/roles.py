"""What the person's role lacks here, as the system prompt says it (issue 22 §2).

The graph's prompt names the tools the role cannot use on this page and the role each needs
(:func:`sstools.agent.prompt.beyond_the_role`: «С ролью «аналитик» недоступно: «Выкатка
дашборда» — доступно роли «инженер»; …»). The offline planner reads that as a model would: a
request for one of them is answered with the refusal in the invocation check's words
(:func:`sstools.agent.explain.permission_denied`), naming the role it needs and the person's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

from sstools.agent import explain, texts
from sstools.agent.texts import answers as answer_texts
from sstools.agent.tools import CATALOGUE
from sstools.auth.roles import Role


def _role_name(role: Role) -> str:
    return answer_texts.ROLE_NAMES.get(role.value, role.value)


@dataclass(frozen=True)
class RoleNote:
    """The person's role (when the prompt says it) and the tools it lacks here."""

    role: Role | None
    lacking: tuple[str, ...]

    def refusal(self, name: str, args: dict[str, Any]) -> str | None:
        """The refusal when the role may not make this call (the tool, or these arguments:
        documentation committed to git needs an engineer), else None."""
        tool = CATALOGUE[name]
        if name in self.lacking:
            required = tool.min_role
        elif self.role is not None:
            try:
                required = tool.required_role(tool.args_model.model_validate(args))
            except ValueError:
                return None
            if self.role.allows(required):
                return None
        else:
            return None
        actual = self.role.value if self.role else None
        write_only = self.role is not None and self.role.allows(tool.min_role)
        return explain.permission_denied(
            tool.title, [required.value], actual, write_only=write_only
        )

    def change_refusal(self, name: str) -> str | None:
        """The refusal when a request asks a tool that reads or writes by its arguments to
        change something in words («удали тестовые заказы») and the role may only read with it."""
        tool = CATALOGUE[name]
        if tool.classify is None or self.role is None or self.role.allows(tool.write_role):
            return None
        return explain.permission_denied(
            tool.title, [tool.write_role.value], self.role.value, write_only=True
        )


def role_note(messages: Sequence[BaseMessage]) -> RoleNote:
    system = next((m for m in messages if isinstance(m, SystemMessage)), None)
    prompt = str(system.content) if system else ""
    lacking = tuple(
        name
        for name, tool in CATALOGUE.items()
        if texts.HIDDEN_TOOL_ROLE.format(tool=tool.title, required=_role_name(tool.min_role))
        in prompt
    )
    role = next(
        (
            one
            for one in Role
            if texts.HIDDEN_BY_ROLE_NOTE.split("{tools}")[0].format(role=_role_name(one)) in prompt
        ),
        None,
    )
    return RoleNote(role=role, lacking=lacking)
