"""Backup archives on disk: a ZIP of an environment's normalised export and its manifest.

``<backup_dir>/<env id>/<stamp>.zip`` holds ``manifest.json`` and the files the git repository
keeps (``<kind>/<uuid>.yaml``, secrets stripped). The manifest names every file with its
SHA-256, so reading an archive back proves it whole: a flipped byte, a truncated file, a file
added or removed is refused before anything is imported from it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import struct
import zipfile
import zlib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from sstools import clock
from sstools.domain.backups.errors import ArchiveCorrupt, BackupNotFound
from sstools.ids import BACKUP_ID_PATTERN, BACKUP_STAMP_PATTERN
from sstools.texts import backups as texts

FORMAT = 1
KINDS = ("dashboards", "charts", "datasets", "databases")
MANIFEST = "manifest.json"
_STAMP_FORMAT = "%Y%m%dT%H%M%S%fZ"
_ID = re.compile(BACKUP_ID_PATTERN)
# What a damaged ZIP raises in zipfile: bad headers, CRC, inflate, flipped method or flag bits.
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    struct.error,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    RuntimeError,
)
_PART = ".part"  # an archive being written or not yet verified: never listed nor restored


class Manifest(BaseModel):
    """What the archive holds and where it came from; ``files`` maps each path to its SHA-256."""

    format: int = FORMAT
    id: str
    env_id: str
    superset_version: str
    created_at: datetime
    created_by: str
    task_id: str | None
    counts: dict[str, int] = Field(description="Files per kind: dashboards, charts, …")
    files: dict[str, str]


class BackupInfo(BaseModel):
    """One archive as the list shows it (its manifest without the file list, plus its size)."""

    id: str
    env_id: str
    created_at: datetime
    created_by: str
    superset_version: str
    counts: dict[str, int]
    files: int
    bytes: int
    archive_sha256: str


def new_id(env_id: str, now: datetime | None = None) -> str:
    moment = (now or clock.now()).astimezone(UTC)
    return f"{env_id}.{moment.strftime(_STAMP_FORMAT)}"


def split_id(backup_id: str) -> tuple[str, str]:
    """(env id, stamp); :class:`BackupNotFound` for a malformed id."""
    if not _ID.match(backup_id):
        raise BackupNotFound(backup_id)
    env_id, stamp = backup_id.rsplit(".", 1)
    return env_id, stamp


def path_of(backup_dir: Path, backup_id: str) -> Path:
    env_id, stamp = split_id(backup_id)
    return backup_dir / env_id / f"{stamp}.zip"


def part_of(path: Path) -> Path:
    return path.with_name(path.name + _PART)


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def counts_of(files: dict[str, bytes]) -> dict[str, int]:
    found = Counter(path.split("/", 1)[0] for path in files)
    return {kind: found.get(kind, 0) for kind in KINDS}


def build(manifest: Manifest, files: dict[str, bytes]) -> bytes:
    """The archive's bytes: the manifest first, then the files in path order."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, manifest.model_dump_json(indent=2))
        for path, content in sorted(files.items()):
            archive.writestr(path, content)
    return buffer.getvalue()


def write(path: Path, content: bytes) -> None:
    """Write ``content`` to ``path`` durably (fsync'd), creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())


def _manifest_of(archive: zipfile.ZipFile, name: str) -> Manifest:
    try:
        return Manifest.model_validate(json.loads(archive.read(MANIFEST)))
    except KeyError as exc:
        raise ArchiveCorrupt(name, texts.NO_MANIFEST) from exc
    except (*_ZIP_ERRORS, ValidationError) as exc:
        raise ArchiveCorrupt(name, texts.BAD_MANIFEST) from exc


def manifest(path: Path) -> Manifest:
    """The archive's manifest alone: its ZIP directory and one member (a full check is
    :func:`read`).

    Raises:
        ArchiveCorrupt: not a ZIP, or its manifest is missing, damaged or invalid.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            return _manifest_of(archive, path.name)
    except _ZIP_ERRORS as exc:
        raise ArchiveCorrupt(path.name, texts.NOT_A_ZIP) from exc


def read(path: Path, name: str | None = None) -> tuple[Manifest, dict[str, bytes]]:
    """The manifest and every file, each checked against the manifest's SHA-256.

    Raises:
        ArchiveCorrupt: not a ZIP, truncated, a checksum differs, a file missing or extra.
    """
    name = name or path.name
    try:
        content = path.read_bytes()
    except FileNotFoundError as exc:
        raise BackupNotFound(name) from exc
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except _ZIP_ERRORS as exc:
        raise ArchiveCorrupt(name, texts.NOT_A_ZIP) from exc
    with archive:
        manifest = _manifest_of(archive, name)
        names = set(archive.namelist()) - {MANIFEST}
        if missing := sorted(set(manifest.files) - names):
            raise ArchiveCorrupt(name, texts.FILE_MISSING.format(path=missing[0]))
        if extra := sorted(names - set(manifest.files)):
            raise ArchiveCorrupt(name, texts.FILE_EXTRA.format(path=extra[0]))
        files: dict[str, bytes] = {}
        for path_in, expected in sorted(manifest.files.items()):
            try:
                data = archive.read(path_in)
            except _ZIP_ERRORS as exc:
                raise ArchiveCorrupt(name, texts.FILE_UNREADABLE.format(path=path_in)) from exc
            if sha256(data) != expected:
                raise ArchiveCorrupt(name, texts.CHECKSUM.format(path=path_in))
            files[path_in] = data
    return manifest, files


def info(path: Path) -> BackupInfo:
    """The list's row for one archive: its manifest only (a full check is :func:`read`)."""
    content = path.read_bytes()
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except _ZIP_ERRORS as exc:
        raise ArchiveCorrupt(path.name, texts.NOT_A_ZIP) from exc
    with archive:
        manifest = _manifest_of(archive, path.name)
    return BackupInfo(
        id=manifest.id,
        env_id=manifest.env_id,
        created_at=manifest.created_at,
        created_by=manifest.created_by,
        superset_version=manifest.superset_version,
        counts=manifest.counts,
        files=len(manifest.files),
        bytes=len(content),
        archive_sha256=sha256(content),
    )


def archives(backup_dir: Path, env_id: str) -> list[Path]:
    """The environment's finished archives, oldest first (stamps sort as times)."""
    folder = backup_dir / env_id
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.zip") if re.fullmatch(BACKUP_STAMP_PATTERN, p.stem))


def environments_with_backups(backup_dir: Path) -> list[str]:
    if not backup_dir.is_dir():
        return []
    return sorted(
        p.name for p in backup_dir.iterdir() if p.is_dir() and archives(backup_dir, p.name)
    )


def prune(backup_dir: Path, env_id: str, keep: int) -> list[str]:
    """Remove the environment's oldest archives beyond ``keep``; the ids removed."""
    found = archives(backup_dir, env_id)
    removed = []
    for path in found[: max(0, len(found) - keep)]:
        path.unlink(missing_ok=True)
        removed.append(f"{env_id}.{path.stem}")
    return removed
