"""The shapes of the ids every layer checks before a lookup: environments, Superset's objects,
backups, and branch names (what ``git check-ref-format --branch`` accepts, checked with dulwich).

Two kinds of branch: any branch a person may read (``BranchName``), and one a person may write
(``WritableBranchName``): the ``snapshots/`` branches are sstools' own record of what a deploy
overwrote, so a rollback can trust them, and no user commit or new branch may land there.
"""

from __future__ import annotations

import re
from typing import Annotated

from dulwich.refs import Ref, check_ref_format
from pydantic import AfterValidator, Field

# Lowercase letters, digits, `-`, `_`: the API refuses any other `env_id` before a lookup.
ENV_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,62}$"
# Superset's primary keys are 32-bit integers: a larger id cannot name anything.
MAX_ID = 2**31 - 1
# A backup is named by its environment and the moment it was taken (UTC, microseconds).
BACKUP_STAMP_PATTERN = r"\d{8}T\d{12}Z"
BACKUP_ID_PATTERN = rf"^{ENV_ID_PATTERN[1:-1]}\.{BACKUP_STAMP_PATTERN}$"

MAX_BRANCH = 100
# Branches only a deploy's snapshot step writes (see sstools/domain/deploy/snapshots.py).
SNAPSHOT_PREFIX = "snapshots/"


def is_commit_id(ref: str) -> bool:
    """A git ref that is a commit's id (a whole or shortened SHA-1), not a branch's name."""
    return re.fullmatch(r"[0-9a-f]{7,40}", ref) is not None


def git_branch_name(value: str) -> str:
    # git check-ref-format --branch: the ref rules for refs/heads/<name>, plus its own two.
    if value.startswith("-") or value in ("HEAD", "@"):
        raise ValueError("must not start with '-' or be 'HEAD' or '@'")
    if value.startswith("refs/"):
        # refs/heads/refs/heads/x beside refs/heads/x: git resolves "refs/heads/x" to either.
        raise ValueError(
            "must not start with 'refs/': give the branch's own name (e.g. 'x', not "
            "'refs/heads/x'), a 'refs/…' name makes an ambiguous ref"
        )
    if not check_ref_format(Ref(b"refs/heads/" + value.encode())):
        raise ValueError(
            "is not a valid git branch name: no '..', '//', '@{', spaces, control characters or "
            "any of ~^:?*[\\; no part starting with '.' or ending with '.lock'; no '/' or '.' "
            "at the end"
        )
    return value


def is_reserved(branch: str) -> bool:
    """A branch sstools alone writes (a deploy's snapshot), or the folder that holds them.

    A branch named exactly ``snapshots`` would be a file where git needs a folder, so every
    snapshot step after it would fail: one engineer could stop every deploy into prod.
    """
    return branch == SNAPSHOT_PREFIX.rstrip("/") or branch.startswith(SNAPSHOT_PREFIX)


def writable_branch_name(value: str) -> str:
    if is_reserved(value):
        raise ValueError(
            f"'{SNAPSHOT_PREFIX}…' branches are the snapshots deploys take before writing; only "
            "sstools writes them (a rollback restores from them): choose another branch name"
        )
    return value


BranchName = Annotated[
    str, Field(min_length=1, max_length=MAX_BRANCH), AfterValidator(git_branch_name)
]
WritableBranchName = Annotated[BranchName, AfterValidator(writable_branch_name)]
