"""Validation as a durable task: read the dashboard, run its charts' queries, ask the model,
store the findings.

Every step only reads Superset (the chart data API runs SELECTs) and the store step is keyed
by the task, so any step may run again after a restart.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sstools.domain.validation.checks import query_findings, structural_findings
from sstools.domain.validation.facts import DashboardFacts, collect
from sstools.domain.validation.models import (
    SEVERITY_ORDER,
    Finding,
    ValidationReport,
)
from sstools.domain.validation.review import ReviewFailed, review
from sstools.llm.background import background_call
from sstools.llm.configured import configured_chat_model
from sstools.storage.models import utcnow
from sstools.storage.validation import store_validation
from sstools.superset import SupersetError, SupersetPool
from sstools.tasks import TaskFailed, context, error_words, task_step, task_workflow, with_superset
from sstools.texts import validation as texts


def collect_facts(env_id: str, dashboard_id: int) -> dict[str, Any]:
    stage = context().environments[env_id].stage

    async def work(pool: SupersetPool) -> dict[str, Any]:
        facts = await collect(pool.client(env_id), dashboard_id, stage)
        return facts.model_dump(mode="json")

    return with_superset(work)


def read_dashboard(task_id: str, total: int, env_id: str, dashboard_id: int) -> dict[str, Any]:
    """Step 1 of validation and documentation; Superset down or the dashboard gone ends the
    task with a sentence saying so."""
    try:
        return task_step(task_id, 1, total, texts.STEP_COLLECT, collect_facts, env_id, dashboard_id)
    except SupersetError as exc:
        raise TaskFailed(
            texts.UNREACHABLE.format(dashboard=dashboard_id, env=env_id, error=error_words(exc))
        ) from exc


def _queries(env_id: str, raw_facts: dict[str, Any]) -> list[dict[str, Any]]:
    facts = DashboardFacts.model_validate(raw_facts)

    async def work(pool: SupersetPool) -> list[dict[str, Any]]:
        found = await query_findings(pool.client(env_id), facts)
        return [one.model_dump() for one in found]

    return with_superset(work)


def _review(raw_facts: dict[str, Any], raw_found: list[dict[str, Any]]) -> dict[str, Any]:
    facts = DashboardFacts.model_validate(raw_facts)
    found = [Finding.model_validate(one) for one in raw_found]
    settings = context().settings
    model = configured_chat_model(settings)
    if model is None:  # unconfigured since the task started: recovered after a restart
        return {"findings": [], "status": texts.REVIEW_NOT_CONFIGURED}
    try:
        with background_call(settings, "validation review"):
            reviewed = review(model, facts, found)
    except ReviewFailed as exc:
        return {"findings": [], "status": texts.REVIEW_FAILED.format(error=exc)}
    return {"findings": [one.model_dump() for one in reviewed], "status": texts.REVIEW_DONE}


def _store(task_id: str, draft: dict[str, Any]) -> str:
    """Store the run; its time, which a replay gets back from the checkpoint unchanged."""
    when = utcnow()
    store_validation(
        context().store.engine,
        env_id=draft["env_id"],
        dashboard_id=draft["dashboard_id"],
        dashboard_uuid=draft["dashboard_uuid"],
        title=draft["title"][:500],
        task_id=task_id,
        review=draft["review"][:500],
        findings=draft["findings"],
        created_at=when,
    )
    return when.isoformat()


@task_workflow
def validate_dashboard(task_id: str, env_id: str, dashboard_id: int) -> dict[str, Any]:
    """Deterministic checks, then (with a model configured) the model's review; stored."""
    with_model = bool(context().settings.llm_base_url)
    total = 4 if with_model else 3
    raw_facts = read_dashboard(task_id, total, env_id, dashboard_id)
    facts = DashboardFacts.model_validate(raw_facts)
    found = structural_findings(facts)
    queried = task_step(task_id, 2, total, texts.STEP_QUERIES, _queries, env_id, raw_facts)
    found += [Finding.model_validate(one) for one in queried]
    review_status = texts.REVIEW_NOT_CONFIGURED
    if with_model:
        outcome = task_step(
            task_id,
            3,
            total,
            texts.STEP_REVIEW,
            _review,
            raw_facts,
            [one.model_dump() for one in found],
        )
        found += [Finding.model_validate(one) for one in outcome["findings"]]
        review_status = outcome["status"]
    found.sort(key=lambda one: SEVERITY_ORDER[one.severity])
    draft = {
        "env_id": env_id,
        "dashboard_id": dashboard_id,
        "dashboard_uuid": facts.uuid,
        "title": facts.title,
        "review": review_status,
        "findings": [one.model_dump() for one in found],
    }
    when = datetime.fromisoformat(
        task_step(task_id, total, total, texts.STEP_STORE, _store, task_id, draft)
    )
    report = ValidationReport(**draft, task_id=task_id, created_at=when)
    return report.model_dump(mode="json")
