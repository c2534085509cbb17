"""Backups of whole environments and restores from them (see docs/backups.md)."""

from sstools.domain.backups.archive import BackupInfo, Manifest
from sstools.domain.backups.errors import (
    ArchiveCorrupt,
    BackupError,
    BackupNotFound,
)
from sstools.domain.backups.plan import PlannedRestore, RestorePlan, plan_restore

__all__ = [
    "ArchiveCorrupt",
    "BackupError",
    "BackupInfo",
    "BackupNotFound",
    "Manifest",
    "PlannedRestore",
    "RestorePlan",
    "plan_restore",
]
