"""What backups and restores refuse::

BackupError
├── BackupNotFound     (→ 404)
└── ArchiveCorrupt     (→ 422: the archive fails its manifest; nothing is imported)
"""

from __future__ import annotations

from sstools.domain.backups import texts


class BackupError(Exception):
    status = 500


class BackupNotFound(BackupError):
    status = 404

    def __init__(self, backup_id: str) -> None:
        super().__init__(texts.NOT_FOUND.format(id=backup_id))
        self.backup_id = backup_id

    def __reduce__(self) -> tuple[type[BackupNotFound], tuple[str]]:
        return (type(self), (self.backup_id,))  # DBOS pickles a step's exception


class ArchiveCorrupt(BackupError):
    status = 422

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(texts.CORRUPT.format(name=name, reason=reason))
        self.name = name
        self.reason = reason

    def __reduce__(self) -> tuple[type[ArchiveCorrupt], tuple[str, str]]:
        return (type(self), (self.name, self.reason))  # DBOS pickles a step's exception
