"""``/api/git``: the repository of dashboard exports — status, branches, commits."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, ConfigDict, Field

from sstools.git_store import (
    DEFAULT_BRANCH,
    Branch,
    BranchName,
    CommitInfo,
    FileChange,
    RepositoryStatus,
    WritableBranchName,
)
from sstools.http.audit_trail import AuditTrail
from sstools.http.auth import CurrentUser, EngineerUser
from sstools.http.deps import (
    GitDep,
    OptionalEnvironmentDep,
    ServicesDep,
    SessionDep,
    SettingsDep,
    find_environment,
)
from sstools.http.errors import field_error
from sstools.ids import ENV_ID_PATTERN, MAX_ID
from sstools.texts import git as texts

router = APIRouter(prefix="/api/git", tags=["git"])

# Each dashboard's status is one export: an environment's status covers at most this many.
MAX_STATUS_DASHBOARDS = 100


class NewBranch(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    name: WritableBranchName  # not under snapshots/: only a deploy's snapshot step writes there
    from_: BranchName = Field(default=DEFAULT_BRANCH, alias="from")


class CommitRequest(BaseModel):
    # /docs «Try it out» starts from this (a generated one names the environment "string").
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "env_id": "ss-dev",
                    "dashboard_ids": [10],
                    "message": "Energy KPIs from ss-dev",
                }
            ]
        },
    )

    env_id: str = Field(max_length=64, pattern=ENV_ID_PATTERN)
    dashboard_ids: list[Annotated[int, Field(ge=1, le=MAX_ID, strict=True)]] = Field(
        min_length=1, max_length=100
    )
    message: str = Field(min_length=1, max_length=500)
    branch: WritableBranchName = DEFAULT_BRANCH


class CommitResponse(BaseModel):
    created: bool
    branch: str
    commit: CommitInfo | None
    files: list[FileChange]
    dashboards: list[str]
    pushed: bool
    push_error: str | None
    summary: str


def _summary(branch: str, commit: CommitInfo | None, files: list[FileChange]) -> str:
    if commit is None:
        return texts.NOTHING_TO_COMMIT.format(branch=branch)
    return texts.COMMITTED.format(commit=commit.id[:7], branch=branch, files=len(files))


@router.get("/status")
async def git_status(
    git: GitDep,
    services: ServicesDep,
    settings: SettingsDep,
    env: OptionalEnvironmentDep,
    user: CurrentUser,
    dashboard_id: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    branch: Annotated[BranchName, Query()] = DEFAULT_BRANCH,
) -> RepositoryStatus:
    if env is None:
        if dashboard_id is not None:
            raise field_error("env_id", texts.STATUS_NEEDS_ENV, where="query", kind="missing")
        return await git.status(None, [], branch)
    superset = services.superset.client(env.id)
    if dashboard_id is not None:
        ids = [dashboard_id]
    else:
        rows = await superset.list_all("dashboard", columns=["id"], limit=MAX_STATUS_DASHBOARDS)
        ids = [int(row["id"]) for row in rows]
    return await git.status(superset, ids, branch)


@router.get("/branches")
async def list_branches(git: GitDep, user: CurrentUser) -> list[Branch]:
    return await git.branches()


@router.post("/branches", status_code=status.HTTP_201_CREATED)
async def create_branch(
    body: NewBranch, git: GitDep, session: SessionDep, user: EngineerUser
) -> Branch:
    branch = await git.create_branch(body.name, body.from_)
    await AuditTrail(session, user).record(
        "git_branch_create",
        "ok",
        branch=body.name,
        start=body.from_,
        commit=branch.commit.id,
    )
    return branch


@router.post("/commits")
async def commit_dashboards(
    body: CommitRequest,
    git: GitDep,
    services: ServicesDep,
    session: SessionDep,
    user: EngineerUser,
) -> CommitResponse:
    env = find_environment(services, body.env_id)
    outcome = await git.commit(
        services.superset.client(env.id),
        body.dashboard_ids,
        message=body.message,
        username=user.username,
        branch=body.branch,
    )
    await AuditTrail(session, user).record(
        "git_commit",
        "ok" if outcome.commit else "unchanged",
        env_id=env.id,
        branch=outcome.branch,
        dashboard_ids=body.dashboard_ids,
        commit=outcome.commit.id if outcome.commit else None,
        files=len(outcome.files),
        pushed=outcome.pushed,
    )
    return CommitResponse(
        created=outcome.commit is not None,
        branch=outcome.branch,
        commit=outcome.commit,
        files=outcome.files,
        dashboards=outcome.dashboards,
        pushed=outcome.pushed,
        push_error=outcome.push_error,
        summary=_summary(outcome.branch, outcome.commit, outcome.files),
    )
