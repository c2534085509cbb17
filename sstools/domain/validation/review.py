"""The model's review of a dashboard's structure, as findings of kind ``review``.

The model answers JSON; only an answer that validates becomes findings. Anything else — no
answer, a refusal, prose, a finding of an unknown severity — is a failed review, reported as
such, and the deterministic findings stand alone.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

import structlog
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sstools.domain.validation.facts import DashboardFacts
from sstools.domain.validation.models import Finding
from sstools.errors import SstoolsError
from sstools.texts import validation as texts

MAX_REVIEW_FINDINGS = 20

_log = structlog.get_logger("sstools.validation")

SYSTEM = """You review an Apache Superset dashboard's structure for the team that maintains it.
You get the dashboard as JSON (charts with their datasets and metrics, filters, owners) and
the problems automatic checks already found. Point out what else a careful reviewer would
raise: charts that duplicate each other, metrics without aggregation, confusing names, missing
filters for obvious dimensions, charts that do not fit the dashboard's purpose. Do not repeat
the automatic findings. Answer ONLY with JSON:
{"findings": [{"severity": "warning" | "info", "object_type": "dashboard" | "chart" | "dataset",
"object_name": "<exact name from the input>", "message": "<in Russian>",
"fix": "<what to do, in Russian>"}]}
At most 20 findings; an empty list when there is nothing to add."""

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


class ReviewItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    severity: Literal["warning", "info"]
    object_type: Literal["dashboard", "chart", "dataset"]
    object_name: str = Field(min_length=1, max_length=500)
    message: str = Field(min_length=1, max_length=2000)
    fix: str = Field(min_length=1, max_length=2000)


class ReviewAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    findings: list[ReviewItem] = Field(max_length=MAX_REVIEW_FINDINGS)


class ReviewFailed(SstoolsError):
    """The model did not answer, or its answer does not validate."""


def model_failure(exc: BaseException, what: str) -> str:
    """A failed model call in words every user may read: its class and HTTP status, nothing else.

    An endpoint's error text may quote the request — a 401 that echoes the Authorization header
    hands the API key to whoever reads the task or the validation — so, as the chat path does,
    the text is neither stored nor logged; the provider's error code goes to the log only.
    """
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    code = getattr(exc, "code", None)
    _log.warning(
        "model call failed",
        during=what,
        error=type(exc).__name__,
        status=status,
        code=code if isinstance(code, str) else None,
    )
    return f"{type(exc).__name__} (HTTP {status})" if status else type(exc).__name__


def structure(facts: DashboardFacts) -> dict[str, Any]:
    """What the model sees: names and shapes, never data or credentials."""
    return {
        "title": facts.title,
        "published": facts.published,
        "owners": facts.owners,
        "charts": [
            {
                "name": chart.name,
                "viz_type": chart.viz_type,
                "dataset": getattr(facts.dataset(chart.dataset_id), "name", None),
                "description": chart.description,
                "metrics": chart.params.get("metrics") or chart.params.get("metric"),
                "groupby": chart.params.get("groupby"),
            }
            for chart in facts.charts
        ],
        "datasets": [
            {"name": one.name, "columns": one.columns, "metrics": one.metrics}
            for one in facts.datasets
        ],
        "filters": [one.model_dump() for one in facts.filters],
    }


def parse_review(text: str, facts: DashboardFacts) -> list[Finding]:
    """The model's answer as findings; :class:`ReviewFailed` when it does not validate."""
    try:
        answer = ReviewAnswer.model_validate_json(_FENCE.sub("", text.strip()))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or texts.REVIEW_ANSWER
        raise ReviewFailed(f"{where}: {first['msg']}") from exc
    ids = {("dashboard", facts.title): facts.dashboard_id}
    ids |= {("chart", chart.name): chart.id for chart in facts.charts}
    ids |= {("dataset", one.name): one.id for one in facts.datasets}
    return [
        Finding(
            kind="review",
            severity=item.severity,
            object_type=item.object_type,
            object_id=ids.get((item.object_type, item.object_name)),
            object_name=item.object_name,
            message=item.message,
            fix=item.fix,
        )
        for item in answer.findings
    ]


def review(model: BaseChatModel, facts: DashboardFacts, found: list[Finding]) -> list[Finding]:
    """Ask the model once; its findings, or :class:`ReviewFailed`."""
    prompt = {
        "dashboard": structure(facts),
        "automatic_findings": [f"{one.object_name}: {one.message}" for one in found],
    }
    try:
        reply = model.invoke(
            [SystemMessage(SYSTEM), HumanMessage(json.dumps(prompt, ensure_ascii=False))]
        )
    except Exception as exc:  # any transport or provider error: the review failed, not the run
        raise ReviewFailed(model_failure(exc, "review")) from exc
    return parse_review(str(reply.content), facts)
