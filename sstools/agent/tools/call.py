"""What a tool call knows when it is built: its scope (the page's environment and object, the
approved plan), the HTTP request it makes, and the helpers that read ids and environments from
the arguments or, failing those, from the scope.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from sstools.agent import texts
from sstools.agent.context import ObjectType
from sstools.agent.texts import tools as tool_texts
from sstools.errors import SstoolsError
from sstools.http.dashboard_filters import DashboardFilter


class ApprovedPlan(BaseModel):
    """The plan a person approved on a card, by digest: the apply is bound to exactly it."""

    model_config = ConfigDict(frozen=True)

    digest: str


class CallScope(BaseModel):
    """What a call knows besides its arguments: where the page is (the UIContext's environment
    and object), and, for the run of an approved call whose card showed a plan, that plan."""

    env_id: str | None = None
    object_type: ObjectType | None = None
    object_id: int | None = None
    approved_plan: ApprovedPlan | None = None
    # The dashboard's filters as the page had them (checked against its columns) and its chart.
    filters: tuple[DashboardFilter, ...] = ()
    chart_id: int | None = None

    @property
    def page_dashboard(self) -> int | None:
        """The dashboard the page shows, on a dashboard's page; else None."""
        return self.object_id if self.object_type is ObjectType.dashboard else None

    def dataset(self) -> tuple[str, int] | None:
        """The dataset the page shows (its environment and id), on a dataset's page; else None."""
        if self.object_type is not ObjectType.dataset or self.object_id is None or not self.env_id:
            return None
        return (self.env_id, self.object_id)

    def dashboards(self, named: Sequence[int]) -> list[int]:
        """The dashboards the arguments name, else the page's, else none."""
        page = self.page_dashboard
        return list(named) if named else [page] if page is not None else []


class ToolRequest(BaseModel):
    method: str
    path: str
    params: dict[str, str | int] | None = None
    json_body: Any = None


class ToolArgumentError(SstoolsError, ValueError):
    """The arguments validate but do not say enough (e.g. no dashboard id and none in context)."""


def not_in_context(object_type: ObjectType) -> ToolArgumentError:
    """The call needs an object of ``object_type`` that neither its arguments nor the page name."""
    what = tool_texts.OBJECT_WORDS[object_type.value]
    return ToolArgumentError(tool_texts.NOT_IN_CONTEXT.format(what=what))


def object_id(explicit: int | None, scope: CallScope, object_type: ObjectType) -> int:
    """The id the model gave, else the one from the UIContext when it is of the right type."""
    if explicit is not None:
        return explicit
    if scope.object_type is object_type and scope.object_id is not None:
        return scope.object_id
    raise not_in_context(object_type)


def env_param(scope: CallScope, named: str | None = None) -> dict[str, str | int]:
    """``env_id``: the environment the arguments name (``named``), else the page's."""
    env_id = named or scope.env_id
    if env_id is None:
        raise ToolArgumentError(texts.NEEDS_ENVIRONMENT)
    return {"env_id": env_id}


class _NamesTarget(Protocol):
    @property
    def target_env_id(self) -> str: ...


class _NamesEnvironment(Protocol):
    @property
    def env_id(self) -> str | None: ...


def named_target(args: _NamesTarget, scope: CallScope) -> str:
    """``target_env``: the environment a write names as its target (deploy, migration, restore)."""
    return args.target_env_id


def named_env(args: _NamesEnvironment, scope: CallScope) -> str | None:
    """``target_env``: the environment the arguments name, if any."""
    return args.env_id


def named_or_current_env(args: _NamesEnvironment, scope: CallScope) -> str | None:
    """``target_env``: the environment the arguments name, else the page's."""
    return args.env_id or scope.env_id
