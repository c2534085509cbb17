"""Branch names: what ``git check-ref-format --branch`` accepts, checked with dulwich."""

from __future__ import annotations

from typing import Annotated

from dulwich.refs import Ref, check_ref_format
from pydantic import AfterValidator, Field

MAX_BRANCH = 100


def git_branch_name(value: str) -> str:
    # git check-ref-format --branch: the ref rules for refs/heads/<name>, plus its own two.
    if value.startswith("-") or value in ("HEAD", "@"):
        raise ValueError("must not start with '-' or be 'HEAD' or '@'")
    if not check_ref_format(Ref(b"refs/heads/" + value.encode())):
        raise ValueError(
            "is not a valid git branch name: no '..', '//', '@{', spaces, control characters or "
            "any of ~^:?*[\\; no part starting with '.' or ending with '.lock'; no '/' or '.' "
            "at the end"
        )
    return value


BranchName = Annotated[
    str, Field(min_length=1, max_length=MAX_BRANCH), AfterValidator(git_branch_name)
]
