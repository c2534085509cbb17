"""Git versioning of dashboard exports: a bare repository of normalised YAML keyed by UUID.

See docs/git.md for the layout.
"""

from sstools.domain.git_store._export import dump, normalise
from sstools.domain.git_store._repo import DEFAULT_BRANCH, Branch, CommitInfo, FileChange
from sstools.domain.git_store.errors import (
    BranchExists,
    ConcurrentUpdate,
    ExportError,
    GitStoreError,
    UnknownBranch,
)
from sstools.domain.git_store.names import BranchName
from sstools.domain.git_store.store import (
    CommitOutcome,
    DashboardStatus,
    GitStore,
    RepositoryStatus,
)

__all__ = [
    "DEFAULT_BRANCH",
    "Branch",
    "BranchExists",
    "BranchName",
    "CommitInfo",
    "CommitOutcome",
    "ConcurrentUpdate",
    "DashboardStatus",
    "ExportError",
    "FileChange",
    "GitStore",
    "GitStoreError",
    "RepositoryStatus",
    "UnknownBranch",
    "dump",
    "normalise",
]
