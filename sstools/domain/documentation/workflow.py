"""Documentation as a durable task: read, write (model or template), commit to git, store.

The commit happens only when the task was started with ``commit`` (engineers only): the text is
the model's, so putting it on ``main`` is a write someone with the right to write chose.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from sstools.domain.documentation.models import Deployment, DocumentSource, GitFacts
from sstools.domain.documentation.render import template_document
from sstools.domain.documentation.writer import DocumentRejected, model_document
from sstools.domain.health import git_status_text
from sstools.domain.validation.facts import collect
from sstools.git_store import DEFAULT_BRANCH, ConcurrentUpdate, GitStore, GitStoreError
from sstools.llm.background import background_call
from sstools.llm.configured import configured_chat_model
from sstools.storage.models import utcnow
from sstools.storage.validation import store_document
from sstools.superset import SupersetClient, SupersetError, SupersetPool
from sstools.tasks import TaskFailed, context, error_words, task_step, task_workflow, with_superset
from sstools.texts import dashboards as dashboard_texts
from sstools.texts import documentation as texts
from sstools.texts.validation import UNREACHABLE


def document_path(uuid: str) -> str:
    return f"docs/{uuid}.md"


def _git() -> GitStore:
    return GitStore.from_settings(context().settings)


async def _deployment(client: SupersetClient, uuid: str) -> Deployment:
    env = client.env
    row = Deployment(env_id=env.id, name=env.name, stage=env.stage.value, present=False)
    try:
        found = await client.find_dashboard("uuid", uuid)
    except SupersetError:
        return row.model_copy(update={"present": None})
    if found is None:
        return row
    _, summary = found
    return row.model_copy(
        update={
            "present": True,
            "dashboard_id": summary.id,
            "changed_on": summary.changed_on,
            "published": summary.published,
        }
    )


async def _git_facts(git: GitStore, client: SupersetClient, dashboard_id: int) -> GitFacts:
    try:
        status = await git.dashboard_status(client, dashboard_id, DEFAULT_BRANCH)
    except (SupersetError, GitStoreError) as exc:
        return GitFacts(status=dashboard_texts.GIT_STATUS_FAILED.format(error=exc))
    commit = status.last_commit
    last = (
        f"{commit.id[:7]} · {commit.message.splitlines()[0]} · {commit.author}" if commit else None
    )
    return GitFacts(status=git_status_text(status, DEFAULT_BRANCH), last_commit=last)


def collect_source(env_id: str, dashboard_id: int) -> dict[str, Any]:
    task_context = context()
    stage = task_context.environments[env_id].stage

    async def work(pool: SupersetPool) -> dict[str, Any]:
        client = pool.client(env_id)
        facts = await collect(client, dashboard_id, stage)
        deployments, git = await asyncio.gather(
            asyncio.gather(
                *(
                    _deployment(pool.client(env.id), facts.uuid)
                    for env in task_context.environments.values()
                )
            ),
            _git_facts(_git(), client, dashboard_id),
        )
        source = DocumentSource(facts=facts, deployments=list(deployments), git=git)
        return source.model_dump(mode="json")

    return with_superset(work)


def _write(raw_source: dict[str, Any]) -> dict[str, Any]:
    source = DocumentSource.model_validate(raw_source)
    settings = context().settings
    model = configured_chat_model(settings)
    if model is None:
        return {"markdown": template_document(source), "author": "template", "model_error": None}
    try:
        with background_call(settings, "documentation"):
            markdown = model_document(model, source)
    except DocumentRejected as exc:
        return {
            "markdown": template_document(source),
            "author": "template",
            "model_error": str(exc),
        }
    return {"markdown": markdown, "author": "model", "model_error": None}


def _commit(uuid: str, title: str, markdown: str, username: str) -> str:
    """Commit ``docs/<uuid>.md`` on main; the commit that holds this text (an older one when
    main already held exactly it)."""

    async def commit() -> str:
        git = _git()
        path = document_path(uuid)
        message = texts.COMMIT_MESSAGE.format(title=title)
        for attempt in range(3):
            try:
                done = await git.commit_files(
                    DEFAULT_BRANCH, {path: markdown.encode()}, message=message, username=username
                )
            except ConcurrentUpdate:  # another writer moved main meanwhile: commit on top
                if attempt == 2:
                    raise
                continue
            if done is not None:
                return done.id
            break
        last = git.repository.last_commit(DEFAULT_BRANCH, path)
        assert last is not None  # main holds the text, so some commit put it there
        return last.id

    return asyncio.run(commit())


def _store(task_id: str, record: dict[str, Any]) -> str:
    when = utcnow()
    store_document(context().store.engine, task_id=task_id, created_at=when, **record)
    return when.isoformat()


@task_workflow
def document_dashboard(
    task_id: str, env_id: str, dashboard_id: int, username: str, commit: bool = False
) -> dict[str, Any]:
    """Read the dashboard, write its document, store it; with ``commit`` (an engineer's choice,
    checked by the route) also commit it beside the export."""
    total = 4 if commit else 3
    try:
        raw_source = task_step(
            task_id, 1, total, texts.STEP_COLLECT, collect_source, env_id, dashboard_id
        )
    except SupersetError as exc:
        reason = UNREACHABLE.format(dashboard=dashboard_id, env=env_id, error=error_words(exc))
        raise TaskFailed(reason) from exc
    source = DocumentSource.model_validate(raw_source)
    written = task_step(task_id, 2, total, texts.STEP_WRITE, _write, raw_source)
    uuid, title = source.facts.uuid, source.facts.title
    git_commit = None
    if commit:
        git_commit = task_step(
            task_id,
            3,
            total,
            texts.STEP_COMMIT,
            _commit,
            uuid,
            title,
            written["markdown"],
            username,
        )
    record = {
        "env_id": env_id,
        "dashboard_id": dashboard_id,
        "dashboard_uuid": uuid,
        "author": written["author"],
        "markdown": written["markdown"],
        "git_path": document_path(uuid),
        "git_commit": git_commit,
    }
    when = task_step(task_id, total, total, texts.STEP_STORE, _store, task_id, record)
    return {
        **record,
        "committed": git_commit is not None,
        "task_id": task_id,
        "title": title,
        "created_at": datetime.fromisoformat(when).isoformat(),
        "model_error": written["model_error"],
        "charts": [chart.name for chart in source.facts.charts],
    }
