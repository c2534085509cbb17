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

from sstools.errors import SstoolsError
from sstools.texts import git as texts


class GitStoreError(SstoolsError):
    pass


class UnknownBranch(GitStoreError):
    def __init__(self, branch: str) -> None:
        super().__init__(texts.UNKNOWN_BRANCH.format(branch=branch))


class BranchExists(GitStoreError):
    def __init__(self, branch: str) -> None:
        super().__init__(texts.BRANCH_EXISTS.format(branch=branch))


class ConcurrentUpdate(GitStoreError):
    def __init__(self, branch: str) -> None:
        super().__init__(texts.CONCURRENT_UPDATE.format(branch=branch))


class ReservedBranch(GitStoreError):
    def __init__(self, branch: str) -> None:
        super().__init__(texts.RESERVED_BRANCH.format(branch=branch))


class UnknownCommit(GitStoreError):
    def __init__(self, commit: str) -> None:
        super().__init__(texts.UNKNOWN_COMMIT.format(commit=commit))


class CorruptCommit(GitStoreError):
    def __init__(self, commit: str, detail: str) -> None:
        super().__init__(texts.CORRUPT_COMMIT.format(commit=commit, detail=detail))


class ExportError(GitStoreError):
    pass
