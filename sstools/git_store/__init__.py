"""Git versioning of dashboard exports: a bare repository of normalised YAML keyed by UUID.

See docs/git.md for the layout.
"""

from sstools.git_store._cache import BoundedCache
from sstools.git_store._database import clean_database
from sstools.git_store._export import dump, load, normalise
from sstools.git_store._repo import DEFAULT_BRANCH, Branch, CommitInfo, FileChange
from sstools.git_store.errors import (
    BranchExists,
    ConcurrentUpdate,
    CorruptCommit,
    ExportError,
    GitStoreError,
    ReservedBranch,
    UnknownBranch,
    UnknownCommit,
)
from sstools.git_store.store import (
    CommitOutcome,
    DashboardStatus,
    GitStore,
    RepositoryStatus,
)
from sstools.ids import SNAPSHOT_PREFIX, BranchName, WritableBranchName

__all__ = [
    "DEFAULT_BRANCH",
    "SNAPSHOT_PREFIX",
    "BoundedCache",
    "Branch",
    "BranchExists",
    "BranchName",
    "CommitInfo",
    "CommitOutcome",
    "ConcurrentUpdate",
    "CorruptCommit",
    "DashboardStatus",
    "ExportError",
    "FileChange",
    "GitStore",
    "GitStoreError",
    "RepositoryStatus",
    "ReservedBranch",
    "UnknownBranch",
    "UnknownCommit",
    "WritableBranchName",
    "clean_database",
    "dump",
    "load",
    "normalise",
]
