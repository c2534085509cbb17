"""The git store as the API uses it: export from an environment, compare, commit, branch.

Git work is blocking, so it runs in a worker thread; writers take one lock per repository so two
commits (or a commit and a new branch) never interleave in this process, and the branch moves by
compare-and-set so a writer in another process cannot be overwritten either.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio.to_thread
import structlog
from dulwich.errors import GitProtocolError, NotGitRepository

from sstools.config import Settings
from sstools.git_store._cache import BoundedCache
from sstools.git_store._export import dashboards_in, normalise
from sstools.git_store._repo import (
    DEFAULT_BRANCH,
    Branch,
    CommitInfo,
    FileChange,
    Repository,
)
from sstools.git_store.errors import ReservedBranch
from sstools.ids import is_reserved
from sstools.redaction import redact_text
from sstools.superset import SupersetClient
from sstools.texts import git as texts
from sstools.texts import transport

Status = Literal["clean", "modified", "untracked"]

# (environment, dashboard UUID, fingerprint of what its export is made of): see export_dashboard.
ExportKey = tuple[str, str, str]
EXPORT_CACHE_SIZE = 64
_log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class DashboardStatus:
    dashboard_id: int | None
    uuid: str
    title: str
    status: Status | None  # None: not compared with any environment
    changed_files: list[FileChange] = field(default_factory=list)
    last_commit: CommitInfo | None = None


@dataclass(frozen=True)
class RepositoryStatus:
    branch: str
    head: CommitInfo
    env_id: str | None
    dashboards: list[DashboardStatus]


@dataclass(frozen=True)
class CommitOutcome:
    branch: str
    commit: CommitInfo | None  # None: the export equals the branch, nothing was committed
    files: list[FileChange]
    dashboards: list[str]
    pushed: bool
    push_error: str | None = None


def _push_failure(exc: Exception) -> str:
    """A remote that answered no, or one that was not reached (dulwich keeps that as the cause)."""
    if isinstance(exc, NotGitRepository) or (
        isinstance(exc, GitProtocolError) and exc.__cause__ is None
    ):
        return texts.PUSH_REFUSED
    return texts.PUSH_UNREACHABLE.format(reason=transport.reason(exc.__cause__ or exc))


def _diff(exported: dict[str, bytes], committed: dict[str, bytes]) -> list[FileChange]:
    return [
        FileChange(path, "added" if path not in committed else "modified")
        for path, content in sorted(exported.items())
        if committed.get(path) != content
    ]


class GitStore:
    """One repository of dashboard exports (``SSTOOLS_GIT_DIR``), shared by the app."""

    def __init__(
        self,
        path: Path,
        remote: str | None = None,
        export_concurrency: int = 4,
        export_cache_size: int = EXPORT_CACHE_SIZE,
    ) -> None:
        self.repository = Repository(path, remote)
        # One dashboard's normalised export by ExportKey: a page view needs it for the git status
        # and for the plans behind «Отличается от источника», and again on the next view.
        self.exports: BoundedCache[ExportKey, dict[str, bytes]] = BoundedCache(export_cache_size)
        self._write_lock = asyncio.Lock()
        # Per environment: a status of 100 dashboards is 100 exports, and each one makes
        # Superset zip a dashboard with its charts, datasets and databases.
        self._export_concurrency = export_concurrency
        self._exports: dict[str, asyncio.Semaphore] = {}

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        exports: BoundedCache[ExportKey, dict[str, bytes]] | None = None,
    ) -> GitStore:
        """The store ``settings`` describe; ``exports`` lends it an earlier store's export cache."""
        store = cls(settings.git_dir, settings.git_remote, settings.export_concurrency)
        if exports is not None:
            store.exports = exports
        return store

    async def export(self, superset: SupersetClient, dashboard_ids: list[int]) -> dict[str, bytes]:
        """The dashboards with their charts, datasets and databases, as the repository has them."""
        bundle = await superset.export_dashboards(dashboard_ids)
        return await anyio.to_thread.run_sync(normalise, bundle)

    def _compare(
        self, branch: str, dashboard_id: int, exported: dict[str, bytes]
    ) -> DashboardStatus:
        (dashboard,) = dashboards_in(exported)
        _, committed = self.repository.read(branch, list(exported))
        if dashboard.path not in committed:
            return DashboardStatus(dashboard_id, dashboard.uuid, dashboard.title, "untracked")
        changed = _diff(exported, committed)
        return DashboardStatus(
            dashboard_id,
            dashboard.uuid,
            dashboard.title,
            "modified" if changed else "clean",
            changed,
            self.repository.last_commit(branch, dashboard.path),
        )

    async def export_dashboard(
        self,
        superset: SupersetClient,
        dashboard_id: int,
        fresh: tuple[str, str] | None = None,
    ) -> dict[str, bytes]:
        """One dashboard's export; given ``fresh`` (its UUID and a fingerprint of what the export
        is made of, which moves when any of it does), the one kept under that key if any.

        The caller vouches for the fingerprint: a hit is only as fresh as what it covers.
        """

        async def export() -> dict[str, bytes]:
            turn = self._exports.setdefault(
                superset.env.id, asyncio.Semaphore(self._export_concurrency)
            )
            async with turn:
                return await self.export(superset, [dashboard_id])

        if fresh is None:
            return await export()
        uuid, fingerprint = fresh
        return await self.exports.get_or_make((superset.env.id, uuid, fingerprint), export)

    async def status_of(
        self, dashboard_id: int, exported: dict[str, bytes], branch: str = DEFAULT_BRANCH
    ) -> DashboardStatus:
        """How an export of the dashboard compares with the branch (no Superset call)."""
        return await anyio.to_thread.run_sync(self._compare, branch, dashboard_id, exported)

    async def dashboard_status(
        self,
        superset: SupersetClient,
        dashboard_id: int,
        branch: str = DEFAULT_BRANCH,
        fresh: tuple[str, str] | None = None,
    ) -> DashboardStatus:
        """How the dashboard in this environment compares with the branch (``fresh``: see
        :meth:`export_dashboard`)."""
        exported = await self.export_dashboard(superset, dashboard_id, fresh)
        return await self.status_of(dashboard_id, exported, branch)

    async def status(
        self,
        superset: SupersetClient | None,
        dashboard_ids: list[int],
        branch: str = DEFAULT_BRANCH,
    ) -> RepositoryStatus:
        """Each dashboard of the environment against the branch; without one, what it tracks."""
        head, _ = await anyio.to_thread.run_sync(self.repository.read, branch, [])
        if superset is None:
            tracked = await anyio.to_thread.run_sync(self._tracked, branch)
            return RepositoryStatus(branch, head, None, tracked)
        dashboards = await asyncio.gather(
            *(self.dashboard_status(superset, one, branch) for one in dashboard_ids)
        )
        return RepositoryStatus(branch, head, superset.env.id, list(dashboards))

    def _tracked(self, branch: str) -> list[DashboardStatus]:
        _, files = self.repository.read(branch, self.repository.tracked(branch, "dashboards"))
        return [
            DashboardStatus(None, found.uuid, found.title, None) for found in dashboards_in(files)
        ]

    async def branches(self) -> list[Branch]:
        return await anyio.to_thread.run_sync(self.repository.branches)

    async def head(self, branch: str) -> CommitInfo:
        head, _ = await anyio.to_thread.run_sync(self.repository.read, branch, [])
        return head

    async def history(
        self, paths: list[str], branch: str = DEFAULT_BRANCH, limit: int = 50
    ) -> list[CommitInfo]:
        """The newest ``limit`` commits on ``branch`` that changed any of ``paths`` (read only)."""
        return await anyio.to_thread.run_sync(self.repository.history, branch, paths, limit)

    async def create_branch(
        self, name: str, start: str = DEFAULT_BRANCH, *, snapshot: bool = False
    ) -> Branch:
        """A new branch at ``start``'s head; a ``snapshots/`` one only for a deploy's snapshot.

        Raises:
            ReservedBranch: ``name`` is a snapshot branch and this is not the snapshot step.
        """
        if is_reserved(name) and not snapshot:
            raise ReservedBranch(name)
        async with self._write_lock:
            return await anyio.to_thread.run_sync(self.repository.create_branch, name, start)

    async def commit(
        self,
        superset: SupersetClient,
        dashboard_ids: list[int],
        *,
        message: str,
        username: str,
        branch: str = DEFAULT_BRANCH,
    ) -> CommitOutcome:
        """Export the dashboards and commit them as ``username``; nothing new, no commit.

        Raises:
            ReservedBranch: a person's commit onto a snapshot branch.
        """
        if is_reserved(branch):
            raise ReservedBranch(branch)
        exported = await self.export(superset, dashboard_ids)
        titles = [found.title for found in dashboards_in(exported)]
        full_message = message + texts.COMMIT_FROM.format(
            env=superset.env.id, titles=", ".join(titles)
        )
        async with self._write_lock:
            commit, files = await self._commit(branch, exported, full_message, username)
            if commit is None or self.repository.remote is None:
                return CommitOutcome(branch, commit, files, titles, pushed=False)
            try:
                await anyio.to_thread.run_sync(self.repository.push, branch)
            except Exception as exc:  # the commit stands; the push can be redone by the next one
                # The remote's URL may hold credentials: the person reads only the kind of failure.
                _log.warning("git_push_failed", branch=branch, error=redact_text(str(exc)))
                return CommitOutcome(
                    branch, commit, files, titles, pushed=False, push_error=_push_failure(exc)
                )
            return CommitOutcome(branch, commit, files, titles, pushed=True)

    async def _commit(
        self, branch: str, files: dict[str, bytes], message: str, username: str
    ) -> tuple[CommitInfo | None, list[FileChange]]:
        author = f"{username} <{username}@sstools>"
        return await anyio.to_thread.run_sync(
            self.repository.commit, branch, files, message, author
        )

    async def commit_files(
        self, branch: str, files: dict[str, bytes], *, message: str, username: str
    ) -> CommitInfo | None:
        """Commit already-normalised files (a snapshot); None when the branch holds them."""
        async with self._write_lock:
            commit, _ = await self._commit(branch, files, message, username)
            return commit
