"""What the repository refuses, as one small tree::

GitStoreError
├── UnknownBranch      (→ 404)
├── BranchExists       (→ 409)
├── ConcurrentUpdate   (→ 409: the branch moved while we wrote)
└── ExportError        (→ 502: Superset's export is not one we can read)
"""

from __future__ import annotations


class GitStoreError(Exception):
    status = 500


class UnknownBranch(GitStoreError):
    status = 404

    def __init__(self, branch: str) -> None:
        super().__init__(f"ветки {branch!r} нет в репозитории")


class BranchExists(GitStoreError):
    status = 409

    def __init__(self, branch: str) -> None:
        super().__init__(f"ветка {branch!r} уже есть")


class ConcurrentUpdate(GitStoreError):
    status = 409

    def __init__(self, branch: str) -> None:
        super().__init__(f"ветка {branch!r} изменилась во время записи; повторите")


class ExportError(GitStoreError):
    status = 502
