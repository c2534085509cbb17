"""What backups and restores refuse (the HTTP edge, ``sstools.app``, picks statuses)::

BackupError
├── BackupNotFound
└── ArchiveCorrupt     the archive fails its manifest; nothing is imported
"""

from __future__ import annotations

from sstools.errors import SstoolsError
from sstools.texts import backups as texts


class BackupError(SstoolsError):
    pass


class BackupNotFound(BackupError):
    def __init__(self, backup_id: str) -> None:
        super().__init__(texts.NOT_FOUND.format(id=backup_id))
        self.backup_id = backup_id

    def __reduce__(self) -> tuple[type[BackupNotFound], tuple[str]]:
        return (type(self), (self.backup_id,))  # DBOS pickles a step's exception


class ArchiveCorrupt(BackupError):
    def __init__(self, name: str, reason: str) -> None:
        super().__init__(texts.CORRUPT.format(name=name, reason=reason))
        self.name = name
        self.reason = reason

    def __reduce__(self) -> tuple[type[ArchiveCorrupt], tuple[str, str]]:
        return (type(self), (self.name, self.reason))  # DBOS pickles a step's exception
