"""The repository itself, through dulwich's objects (blocking: callers run it in a thread).

It is bare: nothing is ever checked out, so there is no working tree to drift. A commit is a
new tree made from the branch's tree plus the exported files, and the branch moves only if it
still points where it did (compare-and-set), so a writer elsewhere is never overwritten.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from dulwich import porcelain
from dulwich.diff_tree import tree_changes
from dulwich.errors import ChecksumMismatch, NotTreeError, ObjectFormatException
from dulwich.object_store import commit_tree_changes, tree_lookup_path
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tree, valid_hexsha
from dulwich.refs import Ref
from dulwich.repo import Repo

from sstools import clock
from sstools.git_store.errors import (
    BranchExists,
    ConcurrentUpdate,
    CorruptCommit,
    UnknownBranch,
    UnknownCommit,
)

DEFAULT_BRANCH = "main"
_HEADS = b"refs/heads/"
_FILE_MODE = 0o100644
_SSTOOLS = b"sstools <sstools@sstools>"


@dataclass(frozen=True)
class CommitInfo:
    id: str
    message: str
    author: str
    time: datetime


@dataclass(frozen=True)
class Branch:
    name: str
    commit: CommitInfo
    default: bool


@dataclass(frozen=True)
class FileChange:
    path: str
    change: str  # "added" | "modified" | "deleted"


def _ref(branch: str) -> Ref:
    return Ref(_HEADS + branch.encode())


def _info(commit: Commit) -> CommitInfo:
    return CommitInfo(
        id=commit.id.decode(),
        message=commit.message.decode("utf-8", "replace").strip(),
        author=commit.author.decode("utf-8", "replace"),
        time=datetime.fromtimestamp(commit.commit_time, UTC),
    )


_WRITERS: dict[Path, threading.Lock] = {}
_WRITERS_GUARD = threading.Lock()


def _writer_lock(path: Path) -> threading.Lock:
    """One lock per repository in this process: the app and every task step share it (a step
    runs on an event loop of its own, so an asyncio lock could not be shared with it)."""
    with _WRITERS_GUARD:
        return _WRITERS.setdefault(path.resolve(), threading.Lock())


class Repository:
    """The bare repository at ``path``; created (with an empty first commit on ``main``) on use."""

    def __init__(self, path: Path, remote: str | None = None) -> None:
        self.path = path
        self.remote = remote
        self._lock = _writer_lock(path)

    def _open(self) -> Repo:
        with self._lock:  # two first uses at once must not both create it
            return self._open_unlocked()

    def _open_unlocked(self) -> Repo:
        if (self.path / "HEAD").exists():
            return Repo(str(self.path))
        return self._create()

    def _create(self) -> Repo:
        self.path.mkdir(parents=True, exist_ok=True)
        repo = Repo.init_bare(str(self.path), default_branch=DEFAULT_BRANCH.encode())
        empty = Tree()
        repo.object_store.add_object(empty)
        root = self._new_commit(empty.id, [], b"Repository of dashboard exports", _SSTOOLS)
        repo.object_store.add_object(root)
        repo.refs.add_if_new(_ref(DEFAULT_BRANCH), root.id)
        return repo

    @staticmethod
    def _new_commit(
        tree: ObjectID, parents: list[ObjectID], message: bytes, author: bytes
    ) -> Commit:
        commit = Commit()
        commit.tree = tree
        commit.parents = parents
        commit.author = commit.committer = author
        commit.author_time = commit.commit_time = int(clock.timestamp())
        commit.author_timezone = commit.commit_timezone = 0
        commit.encoding = b"UTF-8"
        commit.message = message
        return commit

    @staticmethod
    def _head(repo: Repo, branch: str) -> Commit:
        try:
            commit = repo[repo.refs[_ref(branch)]]
        except KeyError as exc:
            raise UnknownBranch(branch) from exc
        assert isinstance(commit, Commit)
        return commit

    def branches(self) -> list[Branch]:
        with self._open() as repo:
            names = sorted(name.decode() for name in repo.refs.keys(base=Ref(_HEADS)))
            return [
                Branch(name, _info(self._head(repo, name)), name == DEFAULT_BRANCH)
                for name in names
            ]

    def create_branch(self, name: str, start: str) -> Branch:
        with self._lock, self._open_unlocked() as repo:
            head = self._head(repo, start)
            if not repo.refs.add_if_new(_ref(name), head.id):
                raise BranchExists(name)
            return Branch(name, _info(head), name == DEFAULT_BRANCH)

    def read(self, branch: str, paths: list[str]) -> tuple[CommitInfo, dict[str, bytes]]:
        """The branch's head and those of ``paths`` it holds (absent ones are left out)."""
        with self._open() as repo:
            head = self._head(repo, branch)
            found: dict[str, bytes] = {}
            for path in paths:
                try:
                    _, sha = tree_lookup_path(repo.__getitem__, head.tree, path.encode())
                except KeyError:
                    continue
                blob = repo[sha]
                assert isinstance(blob, Blob)
                found[path] = blob.data
            return _info(head), found

    def read_commit(self, commit_id: str, paths: list[str]) -> tuple[CommitInfo, dict[str, bytes]]:
        """Those of ``paths`` the commit holds, every object read checked against its id.

        A pinned commit (a deploy's snapshot) is trusted by its id alone: whatever a branch
        points at now, and whatever was written into the object files, what is returned hashes
        to that id.

        Raises:
            UnknownCommit: no such commit (or not a commit id at all).
            CorruptCommit: an object on the way does not hash to its id.
        """
        if not valid_hexsha(commit_id):
            raise UnknownCommit(commit_id)
        with self._open() as repo:

            def checked(sha: bytes) -> ShaFile:
                try:
                    found = repo[sha]
                    found.check()
                except KeyError as exc:
                    raise UnknownCommit(commit_id) from exc
                except (ChecksumMismatch, ObjectFormatException) as exc:
                    raise CorruptCommit(commit_id, sha.decode()) from exc
                return found

            commit = checked(commit_id.encode())
            if not isinstance(commit, Commit):
                raise UnknownCommit(commit_id)
            found: dict[str, bytes] = {}
            for path in paths:
                try:
                    _, sha = tree_lookup_path(checked, commit.tree, path.encode())
                except (KeyError, NotTreeError):  # not in the tree (UnknownCommit is no KeyError)
                    continue
                blob = checked(sha)
                if isinstance(blob, Blob):
                    found[path] = blob.data
            return _info(commit), found

    def tracked(self, branch: str, folder: str) -> list[str]:
        """Paths of the files directly in ``folder`` on the branch."""
        with self._open() as repo:
            head = self._head(repo, branch)
            try:
                _, sha = tree_lookup_path(repo.__getitem__, head.tree, folder.encode())
            except KeyError:
                return []
            tree = repo[sha]
            assert isinstance(tree, Tree)
            return sorted(f"{folder}/{entry.path.decode()}" for entry in tree.iteritems())

    def last_commit(self, branch: str, path: str) -> CommitInfo | None:
        """The newest commit on the branch that changed ``path``."""
        with self._open() as repo:
            head = self._head(repo, branch)
            for entry in repo.get_walker(include=[head.id], paths=[path.encode()], max_entries=1):
                return _info(entry.commit)
            return None

    def history(self, branch: str, paths: list[str], limit: int) -> list[CommitInfo]:
        """The newest ``limit`` commits on the branch that changed any of ``paths``, newest
        first (read only)."""
        if not paths:
            return []
        with self._open() as repo:
            head = self._head(repo, branch)
            walker = repo.get_walker(
                include=[head.id], paths=[path.encode() for path in paths], max_entries=limit
            )
            return [_info(entry.commit) for entry in walker]

    def commit(
        self, branch: str, files: dict[str, bytes], message: str, author: str
    ) -> tuple[CommitInfo | None, list[FileChange]]:
        """Put ``files`` on the branch in one commit; no commit (None) when nothing differs."""
        with self._lock, self._open_unlocked() as repo:
            head = self._head(repo, branch)
            entries = []
            for path, content in files.items():
                blob = Blob.from_string(content)
                repo.object_store.add_object(blob)
                entries.append((path.encode(), _FILE_MODE, blob.id))
            tree = commit_tree_changes(repo.object_store, head.tree, entries)
            changes = [
                FileChange(
                    path=(entry.path or b"").decode(),
                    change={"add": "added", "delete": "deleted"}.get(change.type, "modified"),
                )
                for change in tree_changes(repo.object_store, head.tree, tree)
                if (entry := change.old if change.type == "delete" else change.new) is not None
            ]
            if not changes:
                return None, []
            commit = self._new_commit(tree, [head.id], message.encode(), author.encode())
            repo.object_store.add_object(commit)
            if not repo.refs.set_if_equals(_ref(branch), head.id, commit.id):
                raise ConcurrentUpdate(branch)
            return _info(commit), changes

    def push(self, branch: str) -> None:
        """Push the branch to the configured remote (a URL or a path)."""
        if self.remote is None:
            return
        with self._open() as repo:
            porcelain.push(
                repo,
                self.remote,
                [_ref(branch)],
                outstream=io.BytesIO(),
                errstream=io.BytesIO(),
            )
