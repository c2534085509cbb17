"""What the repository refuses, as one small tree::

GitStoreError
├── UnknownBranch      (→ 404)
├── BranchExists       (→ 409)
├── ConcurrentUpdate   (→ 409: the branch moved while we wrote)
├── ReservedBranch     (→ 403: a person writing a ``snapshots/`` branch)
├── UnknownCommit      (→ 404: a pinned commit the repository no longer holds)
├── CorruptCommit      (→ 409: an object that does not hash to its id)
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


class ReservedBranch(GitStoreError):
    status = 403

    def __init__(self, branch: str) -> None:
        super().__init__(
            f"ветка {branch!r} — снимок выкатки: в ветки snapshots/ пишет только sstools, "
            "чтобы откат восстановил именно снятое; выберите другую ветку"
        )


class UnknownCommit(GitStoreError):
    status = 404

    def __init__(self, commit: str) -> None:
        super().__init__(f"коммита {commit} нет в репозитории")


class CorruptCommit(GitStoreError):
    status = 409

    def __init__(self, commit: str, detail: str) -> None:
        super().__init__(
            f"коммит {commit} не проходит проверку ({detail}): его содержимое изменено"
        )


class ExportError(GitStoreError):
    status = 502
