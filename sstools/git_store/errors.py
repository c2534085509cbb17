"""What the repository refuses, as one small tree (the HTTP edge, ``sstools.app``, picks statuses)::

GitStoreError
├── UnknownBranch      a branch the repository does not have
├── BranchExists
├── ConcurrentUpdate   the branch moved while we wrote
├── ReservedBranch     a person writing a ``snapshots/`` branch
├── UnknownCommit      a pinned commit the repository no longer holds
├── CorruptCommit      an object that does not hash to its id
└── ExportError        Superset's export is not one we can read
"""

from __future__ import annotations

from typing import ClassVar

from sstools.errors import SstoolsError
from sstools.texts import git as texts


class GitStoreError(SstoolsError):
    pass


class _OfBranch(GitStoreError):
    """A refusal about one branch: the class's ``words``, naming it."""

    words: ClassVar[str]

    def __init__(self, branch: str) -> None:
        super().__init__(self.words.format(branch=branch))


class UnknownBranch(_OfBranch):
    words = texts.UNKNOWN_BRANCH


class BranchExists(_OfBranch):
    words = texts.BRANCH_EXISTS


class ConcurrentUpdate(_OfBranch):
    words = texts.CONCURRENT_UPDATE


class ReservedBranch(_OfBranch):
    words = texts.RESERVED_BRANCH


class UnknownCommit(GitStoreError):
    def __init__(self, commit: str) -> None:
        super().__init__(texts.UNKNOWN_COMMIT.format(commit=commit))


class CorruptCommit(GitStoreError):
    def __init__(self, commit: str, detail: str) -> None:
        super().__init__(texts.CORRUPT_COMMIT.format(commit=commit, detail=detail))


class ExportError(GitStoreError):
    pass
