"""The call's arguments as its card shows them: labelled, environments and the page's dashboard
named, what the call takes from the page shown too."""

from __future__ import annotations

import re

from sstools.agent import texts
from sstools.agent.guardrails import CardArgument
from sstools.agent.texts import answers as answer_texts
from sstools.agent.tools import CallScope, ToolArgs, ToolSpec
from sstools.environments import EnvironmentRegistry

_CARD_VALUE_MAX = 300
_TASK_ID = re.compile(r"[0-9a-f]{32}")
_CARD_SQL_MAX = 4000
# Arguments that name an environment: shown with the registry's name beside the id.
_ENV_FIELDS = frozenset({"target_env_id", "source_env_id", "env_id"})


def field_label(tool: ToolSpec, field: str) -> str:
    """An argument's label on the card: «Куда», «Дашборды», «Ветка»."""
    if tool.name == "create_branch" and field == "name":
        return answer_texts.CARD_BRANCH
    return answer_texts.CARD_LABELS.get(field, answer_texts.CARD_OTHER.format(name=field))


def env_label(env_id: str, environments: EnvironmentRegistry) -> str:
    env = environments.get(env_id)
    return answer_texts.CARD_ENV.format(id=env_id, name=env.name) if env else env_id


def dashboard_label(
    dashboard_id: int, scope: CallScope, object_name: str | None, *, other: bool = True
) -> str:
    """«Отчёт (#6)» for the page's dashboard; ``other``: one that is not is said to be not."""
    page_id = scope.page_dashboard
    if page_id is None:
        return f"#{dashboard_id}"
    page = answer_texts.CARD_OBJECT.format(name=object_name, id=page_id) if object_name else None
    if page_id == dashboard_id:
        return page or f"#{dashboard_id}"
    if not other:
        return f"#{dashboard_id}"
    # Only a dashboard the person named gets this far (graph: turn.not_the_page_object).
    return texts.NOT_THE_PAGE_DASHBOARD.format(given=dashboard_id, page=page or f"#{page_id}")


def _value(
    field: str,
    value: object,
    scope: CallScope,
    object_name: str | None,
    environments: EnvironmentRegistry,
) -> str:
    if isinstance(value, bool):
        return texts.YES if value else texts.NO
    if field in _ENV_FIELDS and isinstance(value, str):
        return env_label(value, environments)
    if field == "dashboard_id" and isinstance(value, int):
        return dashboard_label(value, scope, object_name)
    if field == "dashboard_ids" and isinstance(value, list):
        # A list with the page's dashboard in it names the others on purpose.
        other = scope.object_id not in value
        return ", ".join(
            dashboard_label(int(one), scope, object_name, other=other) for one in value
        )
    if field == "object_type" and isinstance(value, str):
        return answer_texts.CARD_OBJECT_TYPES.get(value, value)
    if field == "task_id" and isinstance(value, str) and _TASK_ID.fullmatch(value):
        return value[:8]  # as people quote a task; the API takes these 8 digits too
    if isinstance(value, list):
        return ", ".join(str(one) for one in value)
    return str(value)


def card_arguments(
    tool: ToolSpec,
    args: ToolArgs,
    scope: CallScope,
    object_name: str | None,
    environments: EnvironmentRegistry,
) -> list[CardArgument]:
    """The call's arguments as labelled values; what it takes from the page (the dashboard in
    context, the environment it acts in) is shown too, since that is what it will act on."""
    fields = type(args).model_fields
    given = {
        field: value
        for field, value in args.model_dump(exclude_none=True).items()
        if value not in ([], "")
        and (
            fields[field].is_required()
            or value != fields[field].get_default(call_default_factory=True)
        )
    }
    out: list[CardArgument] = []
    context_dashboard = scope.page_dashboard is not None
    if "dashboard_id" in fields and "dashboard_id" not in given and context_dashboard:
        given = {"dashboard_id": scope.object_id, **given}
    if "dashboard_ids" in fields and not given.get("dashboard_ids") and context_dashboard:
        given = {**given, "dashboard_ids": [scope.object_id]}
    for field, value in given.items():
        if field == "database_mapping":
            continue  # the plan names the databases (card.build), never their UUIDs
        label = field_label(tool, field)
        text = _value(field, value, scope, object_name, environments)
        limit = _CARD_SQL_MAX if field == "sql" else _CARD_VALUE_MAX  # a write's SQL, in full
        out.append(CardArgument(label=label, value=text[:limit]))
    # The page's environment: the source of a call that has a target, else where it acts.
    named = {"source_env_id", "git_ref"} if tool.target_env else {"env_id"}
    if tool.needs_env and scope.env_id is not None and not named & given.keys():
        label = answer_texts.CARD_SOURCE if tool.target_env else answer_texts.CARD_ENVIRONMENT
        out.append(CardArgument(label=label, value=env_label(scope.env_id, environments)))
    return out
