"""The one place the agent turns an error or an outcome into the words a person reads.

Every sentence comes from :mod:`sstools.agent.texts`; the steps that meet a failure (the
invocation check, the executor, the graph, the run, the agent API) say what happened and take
the words from here. Two kinds of words are made where their facts are, from the catalogue too:
a tool's builder refusing arguments that do not say enough (``ToolArgumentError``, passed
through as it is) and the reasons a tool is hidden (``selection``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import openai
import structlog
from langgraph.errors import GraphRecursionError

from sstools.agent import texts
from sstools.agent.events import ErrorEvent
from sstools.agent.texts import answers as answer_texts
from sstools.errors import SstoolsError

_log = structlog.get_logger("sstools.agent")

# Why a card's call did not run: the person denied it, nobody decided in time, the target moved
# before the second approval, or the answer named another card or other arguments.
Declined = Literal["deny", "expired", "target_moved", "mismatch"]


class ModelFailed(SstoolsError):
    """The chat model call raised: the endpoint, its client, or its output (→ ``llm_error``)."""


# -- the invocation check: why a call does not run -------------------------------------------


def unknown_tool(name: str, offered: list[str]) -> str:
    return texts.UNKNOWN_TOOL.format(tool=name, available=", ".join(offered))


def bad_arguments(tool: str, problems: list[str]) -> str:
    return texts.BAD_ARGUMENTS.format(tool=tool, problems="; ".join(problems))


def not_offered(tool: str, reason: str) -> str:
    return texts.NOT_OFFERED.format(tool=tool, reason=reason)


def unknown_environment(env_id: str) -> str:
    return texts.UNKNOWN_ENVIRONMENT.format(env=env_id)


def permission_denied(
    tool: str, roles: list[str], actual: str | None = None, *, write_only: bool = False
) -> str:
    """«Недостаточно прав: «Выкатка дашборда» доступна роли «инженер»; у вас — «аналитик»»;
    ``write_only``: the person may use the tool, only not to write."""
    named = ", ".join(f"«{answer_texts.ROLE_NAMES.get(role, role)}»" for role in roles)
    template = texts.PERMISSION_DENIED_WRITE if write_only else texts.PERMISSION_DENIED
    text = template.format(tool=tool, roles=named or "?")
    if actual is not None:
        text += texts.PERMISSION_YOURS.format(role=answer_texts.ROLE_NAMES.get(actual, actual))
    return text


# -- the executor: how a call that was sent ended --------------------------------------------


def route_refused(tool: str) -> str:
    return texts.ROUTE_REFUSED.format(tool=tool)


def no_answer(tool: str, seconds: float, *, write: bool) -> str:
    """A timeout: a read may be retried; a write may have happened, so its status is unknown."""
    template = texts.TIMEOUT_WRITE if write else texts.TIMEOUT_READ
    return template.format(tool=tool, seconds=seconds)


def failed(tool: str, detail: str) -> str:
    return texts.TOOL_FAILED.format(tool=tool, detail=detail)


def rate_limited(tool: str, detail: str) -> str:
    return texts.RATE_LIMITED.format(tool=tool, detail=detail)


def session_expired() -> str:
    return texts.SESSION_EXPIRED


def crashed(title: str) -> str:
    """A call that raised under the executor: the person learns it failed, not why."""
    return texts.TOOL_CRASHED.format(tool=title)


# -- the graph: a card not approved, a reply not usable --------------------------------------


def cancelled(title: str, why: Declined) -> str:
    """Why a card's call did not run: «вы отклонили «…»», «цель изменилась…»."""
    reasons = {
        "deny": texts.CANCELLED_BY_USER,
        "expired": texts.CANCELLED_EXPIRED,
        "target_moved": texts.CANCELLED_TARGET_MOVED,
        "mismatch": texts.CANCELLED_MISMATCH,
    }
    return reasons[why].format(tool=title)


def with_reason(text: str, said: str | None) -> str:
    """The person's own reason after ``text``, for the person's screen; the model gets the
    reason apart, as quoted data (see ``step_messages.cancellation``)."""
    return texts.CANCELLED_BECAUSE.format(text=text, reason=said) if said else text


def operation_cancelled(reason: str) -> str:
    return texts.OPERATION_CANCELLED.format(reason=reason)


def plan_unavailable(tool: str, problem: str | None) -> str:
    """No plan, so no card: the server's reason (or that nothing answered), nothing changed."""
    return texts.PLAN_UNAVAILABLE.format(tool=tool, problem=problem or texts.PLAN_NO_ANSWER)


def plan_not_applicable(
    tool: str, summary: str, unmapped: Sequence[str] = (), targets: Sequence[str] = ()
) -> str:
    """Why the plan cannot apply; where a source database has no match but the target has
    databases, which ones, so the person can name a mapping."""
    text = texts.PLAN_NOT_APPLICABLE.format(tool=tool, summary=summary)
    if unmapped and targets:
        quoted = ", ".join(f"«{name}»" for name in unmapped)
        text += texts.PLAN_UNMAPPED.format(
            sources=quoted, targets=", ".join(f"«{name}»" for name in targets)
        )
    return text


def plan_changes_nothing(tool: str, summary: str) -> str:
    """Said once: a plan's own summary often begins «Изменений нет: …»."""
    said = texts.NO_CHANGES in summary.casefold()
    template = texts.PLAN_CHANGES_NOTHING_SAID if said else texts.PLAN_CHANGES_NOTHING
    return template.format(tool=tool, summary=summary.rstrip("."))


def model_reply_unusable() -> str:
    return texts.MODEL_REPLY_UNUSABLE


# -- the run: why it does not start, why it stopped ------------------------------------------


def busy() -> str:
    """A conversation with a run going or a card waiting (→ 409)."""
    return texts.CONVERSATION_BUSY


def too_many_runs(limit: int) -> str:
    return texts.TOO_MANY_RUNS.format(limit=limit)


def too_many_conversations(limit: int) -> str:
    return texts.TOO_MANY_CONVERSATIONS.format(limit=limit)


def over_token_budget(used: int, limit: int, retry_after_s: int) -> str:
    """A message refused for the person's daily token budget (→ 429): «… через 3 ч 15 мин»."""
    hours, minutes = divmod(retry_after_s // 60, 60)
    if hours:
        wait = texts.WAIT_HOURS_MINUTES.format(hours=hours, minutes=minutes)
    elif minutes:
        wait = texts.WAIT_MINUTES.format(minutes=minutes)
    else:
        wait = texts.WAIT_UNDER_A_MINUTE
    return texts.DAILY_LIMIT_SPENT.format(used=_grouped(used), limit=_grouped(limit), wait=wait)


def _grouped(count: int) -> str:
    """«12 345»: digits in threes with a no-break space, as Russian writes them."""
    return f"{count:,}".replace(",", "\u00a0")


def run_interrupted(run_id: str) -> ErrorEvent:
    """A run whose worker died, as the reaper tells it."""
    return ErrorEvent(code="run_interrupted", message=texts.RUN_INTERRUPTED, run_id=run_id)


def run_failed(exc: Exception, conversation_id: str, run_id: str, step_limit: int) -> ErrorEvent:
    """A failed run in plain words for the chat, the detail to the log.

    The model's failures are ``llm_error``; anything else failed on our side (storage, a bug) and
    is ``internal_error``. A model endpoint's error text may quote keys or prompts, so only its
    status and codes are logged; our own failures are logged with their traceback.
    """
    ids = {"conversation_id": conversation_id, "run_id": run_id}
    if isinstance(exc, GraphRecursionError):  # the model kept calling tools
        _log.warning("run stopped at the step limit", limit=step_limit, **ids)
        return ErrorEvent(code="llm_error", message=texts.RUN_TOO_LONG, run_id=run_id)
    if isinstance(exc, ModelFailed):
        cause = exc.__cause__
        if isinstance(cause, openai.APIError):
            _log.error(
                "model endpoint failed",
                error=type(cause).__name__,
                status=getattr(cause, "status_code", None),
                code=cause.code,
                error_type=cause.type,
                **ids,
            )
        else:
            _log.error("model call failed", error=str(exc), exc_info=cause, **ids)
        return ErrorEvent(code="llm_error", message=texts.LLM_FAILED, run_id=run_id)
    _log.exception("run failed", **ids)
    return ErrorEvent(code="internal_error", message=texts.INTERNAL_ERROR, run_id=run_id)
